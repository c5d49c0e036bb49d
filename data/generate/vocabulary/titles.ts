/**
 * Job titles across levels (C-Level, VP, Director, Manager, Staff — the levels of `server/scoring/model.ts`)
 * and functions, in English plus German, French, Spanish and Portuguese variants (with their feminine forms).
 * The level/function stored here is what the title means; the server classifies titles on its own, so the
 * two may be compared in tests.
 */

import { type TitleFunction as KnownFunction, TITLE_LEVELS, type TitleLevel } from '../../../core/vocabulary.ts';

export type { TitleLevel };
export { TITLE_LEVELS };

/** The functions the generator writes titles for: a subset of the classifier's (core/vocabulary.ts). */
export const TITLE_FUNCTIONS = [
  'Executive',
  'Marketing',
  'Sales',
  'Engineering',
  'IT',
  'Finance',
  'Human Resources',
  'Operations',
  'Legal',
  'Customer Success',
  'Product',
  'Data & Analytics',
] as const satisfies readonly KnownFunction[];
export type TitleFunction = (typeof TITLE_FUNCTIONS)[number];

export type TitleLanguage = 'en' | 'de' | 'fr' | 'es' | 'pt';

export interface Title {
  /** Masculine or neutral form. */
  title: string;
  /** Feminine form where the language has one. */
  feminine?: string;
  level: TitleLevel;
  fn: TitleFunction;
  /** C-level roles are unique within a company (one CEO). */
  role?: string;
}

const w = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/** Subject areas used in "VP of …", "Director, …" and "Head of …" titles. */
const AREAS: Record<Exclude<TitleFunction, 'Executive'>, string[]> = {
  Marketing: w(
    'Marketing, Demand Generation, Growth Marketing, Brand, Product Marketing, Marketing Operations, Digital Marketing, Communications, Field Marketing',
  ),
  Sales: w(
    'Sales, Enterprise Sales, Business Development, Sales Operations, Revenue Operations, Channel Sales, EMEA Sales, North America Sales, Partnerships, Inside Sales',
  ),
  Engineering: w('Engineering, Software Engineering, Platform Engineering, R&D, Infrastructure Engineering, Quality Engineering'),
  IT: w('IT, Information Technology, IT Operations, Information Security, Enterprise Applications, IT Infrastructure'),
  Finance: w('Finance, Financial Planning & Analysis, Accounting, Treasury, Tax'),
  'Human Resources': w('Human Resources, People, Talent Acquisition, People Operations, Total Rewards, Learning & Development'),
  Operations: w('Operations, Supply Chain, Procurement, Business Operations, Facilities, Logistics'),
  Legal: w('Legal, Compliance, Legal Affairs, Risk & Compliance'),
  'Customer Success': w('Customer Success, Customer Experience, Client Services, Customer Support, Professional Services'),
  Product: w('Product, Product Management, Product Design, UX'),
  'Data & Analytics': w('Data, Analytics, Data & Analytics, Business Intelligence, Data Science, Data Engineering'),
};

const MANAGERS: Record<Exclude<TitleFunction, 'Executive'>, string[]> = {
  Marketing: w(
    'Marketing Manager, Demand Generation Manager, Product Marketing Manager, Content Marketing Manager, Digital Marketing Manager, Marketing Operations Manager, Brand Manager, Field Marketing Manager, Events Manager, Social Media Manager, Senior Marketing Manager',
  ),
  Sales: w(
    'Sales Manager, Regional Sales Manager, Inside Sales Manager, Sales Operations Manager, Business Development Manager, Area Sales Manager, Senior Sales Manager',
  ),
  Engineering: w('Engineering Manager, Software Development Manager, QA Manager, DevOps Manager, Senior Engineering Manager'),
  IT: w('IT Manager, Network Manager, IT Service Delivery Manager, Security Operations Manager, Systems Manager, IT Project Manager'),
  Finance: w('Finance Manager, Accounting Manager, Controller, Payroll Manager, FP&A Manager, Tax Manager'),
  'Human Resources': w('HR Manager, Talent Acquisition Manager, Learning & Development Manager, Recruiting Manager, People Operations Manager'),
  Operations: w(
    'Operations Manager, Office Manager, Facilities Manager, Supply Chain Manager, Procurement Manager, Program Manager, Project Manager, Plant Manager, Warehouse Manager',
  ),
  Legal: w('Legal Operations Manager, Compliance Manager, Contracts Manager'),
  'Customer Success': w('Customer Success Manager, Support Manager, Client Services Manager, Account Manager, Implementation Manager'),
  Product: w('Product Manager, Senior Product Manager, Group Product Manager, UX Manager'),
  'Data & Analytics': w('Analytics Manager, Business Intelligence Manager, Data Engineering Manager, Data Science Manager'),
};

const STAFF: Record<Exclude<TitleFunction, 'Executive'>, string[]> = {
  Marketing: w(
    'Marketing Specialist, Marketing Coordinator, Content Strategist, SEO Specialist, Marketing Analyst, Copywriter, Graphic Designer, Growth Marketer, Marketing Operations Specialist, Communications Specialist, Demand Generation Specialist',
  ),
  Sales: w(
    'Account Executive, Senior Account Executive, Sales Development Representative, Business Development Representative, Enterprise Account Executive, Sales Engineer, Solutions Consultant, Inside Sales Representative, Sales Representative, Account Director',
  ),
  Engineering: w(
    'Software Engineer, Senior Software Engineer, Staff Engineer, Principal Engineer, Frontend Developer, Backend Developer, Full Stack Developer, DevOps Engineer, Site Reliability Engineer, QA Engineer, Mobile Developer, Mechanical Engineer, Electrical Engineer, Process Engineer',
  ),
  IT: w(
    'Systems Administrator, Network Engineer, IT Support Specialist, Help Desk Technician, Security Analyst, Cloud Engineer, Database Administrator, IT Analyst, Solutions Architect, Systems Engineer',
  ),
  Finance: w(
    'Accountant, Senior Accountant, Financial Analyst, Accounts Payable Specialist, Bookkeeper, Tax Specialist, Internal Auditor, Billing Specialist, Credit Analyst',
  ),
  'Human Resources': w(
    'Recruiter, Technical Recruiter, HR Generalist, HR Coordinator, Payroll Specialist, HR Business Partner, Talent Acquisition Specialist, Benefits Specialist',
  ),
  Operations: w(
    'Operations Analyst, Operations Coordinator, Buyer, Logistics Coordinator, Executive Assistant, Office Administrator, Project Coordinator, Supply Chain Analyst, Production Planner',
  ),
  Legal: w('Paralegal, Legal Counsel, Corporate Counsel, Compliance Analyst, Associate Attorney, Contract Specialist, Senior Counsel'),
  'Customer Success': w(
    'Customer Success Specialist, Support Engineer, Customer Support Representative, Technical Support Specialist, Implementation Consultant, Onboarding Specialist',
  ),
  Product: w('Product Designer, UX Designer, UX Researcher, Product Analyst, Product Owner, Technical Writer'),
  'Data & Analytics': w(
    'Data Analyst, Data Scientist, Data Engineer, Business Intelligence Analyst, Analytics Engineer, Machine Learning Engineer, Senior Data Scientist, Senior Data Analyst',
  ),
};

/** [title, function, unique role] */
const C_LEVEL: [string, TitleFunction, string][] = [
  ['Chief Executive Officer', 'Executive', 'ceo'],
  ['CEO', 'Executive', 'ceo'],
  ['Founder & CEO', 'Executive', 'ceo'],
  ['Co-Founder & CEO', 'Executive', 'ceo'],
  ['President & CEO', 'Executive', 'ceo'],
  ['President', 'Executive', 'president'],
  ['Managing Director', 'Executive', 'md'],
  ['Co-Founder', 'Executive', 'cofounder'],
  ['Chief Operating Officer', 'Operations', 'coo'],
  ['COO', 'Operations', 'coo'],
  ['Chief Financial Officer', 'Finance', 'cfo'],
  ['CFO', 'Finance', 'cfo'],
  ['Chief Marketing Officer', 'Marketing', 'cmo'],
  ['CMO', 'Marketing', 'cmo'],
  ['Chief Growth Officer', 'Marketing', 'cgo'],
  ['Chief Revenue Officer', 'Sales', 'cro'],
  ['Chief Commercial Officer', 'Sales', 'cco'],
  ['Chief Sales Officer', 'Sales', 'cso'],
  ['Chief Technology Officer', 'Engineering', 'cto'],
  ['CTO', 'Engineering', 'cto'],
  ['Chief Information Officer', 'IT', 'cio'],
  ['CIO', 'IT', 'cio'],
  ['Chief Information Security Officer', 'IT', 'ciso'],
  ['CISO', 'IT', 'ciso'],
  ['Chief People Officer', 'Human Resources', 'chro'],
  ['Chief Human Resources Officer', 'Human Resources', 'chro'],
  ['Chief Legal Officer', 'Legal', 'clo'],
  ['General Counsel', 'Legal', 'clo'],
  ['Chief Customer Officer', 'Customer Success', 'ccuo'],
  ['Chief Product Officer', 'Product', 'cpo'],
  ['Chief Data Officer', 'Data & Analytics', 'cdo'],
  ['Chief Analytics Officer', 'Data & Analytics', 'cao'],
];

/** Non-English titles: [masculine, feminine or '', level, function, role]. */
const LOCAL: Record<Exclude<TitleLanguage, 'en'>, [string, string, TitleLevel, TitleFunction, string?][]> = {
  de: [
    ['Geschäftsführer', 'Geschäftsführerin', 'C-Level', 'Executive', 'ceo'],
    ['Vorstandsvorsitzender', 'Vorstandsvorsitzende', 'C-Level', 'Executive', 'ceo'],
    ['Finanzvorstand', '', 'C-Level', 'Finance', 'cfo'],
    ['Technischer Geschäftsführer', 'Technische Geschäftsführerin', 'C-Level', 'Engineering', 'cto'],
    ['Vertriebsleiter', 'Vertriebsleiterin', 'Director', 'Sales'],
    ['Leiter Marketing', 'Leiterin Marketing', 'Director', 'Marketing'],
    ['Bereichsleiter Vertrieb', 'Bereichsleiterin Vertrieb', 'Director', 'Sales'],
    ['IT-Leiter', 'IT-Leiterin', 'Director', 'IT'],
    ['Leiter Personal', 'Personalleiterin', 'Director', 'Human Resources'],
    ['Kaufmännischer Leiter', 'Kaufmännische Leiterin', 'Director', 'Finance'],
    ['Leiter Softwareentwicklung', 'Leiterin Softwareentwicklung', 'Director', 'Engineering'],
    ['Leiter Datenanalyse', 'Leiterin Datenanalyse', 'Director', 'Data & Analytics'],
    ['Leiter Einkauf', 'Leiterin Einkauf', 'Director', 'Operations'],
    ['Teamleiter Kundenservice', 'Teamleiterin Kundenservice', 'Manager', 'Customer Success'],
    ['Teamleiter Vertrieb', 'Teamleiterin Vertrieb', 'Manager', 'Sales'],
    ['Projektleiter', 'Projektleiterin', 'Manager', 'Operations'],
    ['Produktmanager', 'Produktmanagerin', 'Manager', 'Product'],
    ['Marketingmanager', 'Marketingmanagerin', 'Manager', 'Marketing'],
    ['Gruppenleiter IT', 'Gruppenleiterin IT', 'Manager', 'IT'],
    ['Softwareentwickler', 'Softwareentwicklerin', 'Staff', 'Engineering'],
    ['Vertriebsmitarbeiter', 'Vertriebsmitarbeiterin', 'Staff', 'Sales'],
    ['Außendienstmitarbeiter', 'Außendienstmitarbeiterin', 'Staff', 'Sales'],
    ['Bilanzbuchhalter', 'Bilanzbuchhalterin', 'Staff', 'Finance'],
    ['Systemadministrator', 'Systemadministratorin', 'Staff', 'IT'],
    ['Marketingreferent', 'Marketingreferentin', 'Staff', 'Marketing'],
    ['Personalreferent', 'Personalreferentin', 'Staff', 'Human Resources'],
    ['Datenanalyst', 'Datenanalystin', 'Staff', 'Data & Analytics'],
    ['Justiziar', 'Justiziarin', 'Staff', 'Legal'],
    ['Kundenbetreuer', 'Kundenbetreuerin', 'Staff', 'Customer Success'],
    ['Einkäufer', 'Einkäuferin', 'Staff', 'Operations'],
  ],
  fr: [
    ['Directeur Général', 'Directrice Générale', 'C-Level', 'Executive', 'ceo'],
    ['Président-Directeur Général', 'Présidente-Directrice Générale', 'C-Level', 'Executive', 'ceo'],
    ['Directeur Administratif et Financier', 'Directrice Administrative et Financière', 'C-Level', 'Finance', 'cfo'],
    ["Directeur des Systèmes d'Information", "Directrice des Systèmes d'Information", 'Director', 'IT'],
    ['Directeur Marketing', 'Directrice Marketing', 'Director', 'Marketing'],
    ['Directeur Commercial', 'Directrice Commerciale', 'Director', 'Sales'],
    ['Directeur Technique', 'Directrice Technique', 'Director', 'Engineering'],
    ['Directeur des Ressources Humaines', 'Directrice des Ressources Humaines', 'Director', 'Human Resources'],
    ['Directeur Juridique', 'Directrice Juridique', 'Director', 'Legal'],
    ['Directeur des Opérations', 'Directrice des Opérations', 'Director', 'Operations'],
    ['Responsable Data', '', 'Director', 'Data & Analytics'],
    ['Responsable Marketing', '', 'Manager', 'Marketing'],
    ['Responsable Commercial', 'Responsable Commerciale', 'Manager', 'Sales'],
    ['Responsable RH', '', 'Manager', 'Human Resources'],
    ['Chef de projet', 'Cheffe de projet', 'Manager', 'Operations'],
    ['Responsable Comptable', '', 'Manager', 'Finance'],
    ['Responsable Service Client', '', 'Manager', 'Customer Success'],
    ['Chef de produit', 'Cheffe de produit', 'Manager', 'Product'],
    ['Responsable Informatique', '', 'Manager', 'IT'],
    ['Ingénieur logiciel', 'Ingénieure logiciel', 'Staff', 'Engineering'],
    ['Développeur', 'Développeuse', 'Staff', 'Engineering'],
    ['Chargé de communication', 'Chargée de communication', 'Staff', 'Marketing'],
    ['Ingénieur commercial', 'Ingénieure commerciale', 'Staff', 'Sales'],
    ['Comptable', '', 'Staff', 'Finance'],
    ['Juriste', '', 'Staff', 'Legal'],
    ['Chargé de recrutement', 'Chargée de recrutement', 'Staff', 'Human Resources'],
    ['Analyste de données', '', 'Staff', 'Data & Analytics'],
    ['Technicien informatique', 'Technicienne informatique', 'Staff', 'IT'],
    ['Chargé de clientèle', 'Chargée de clientèle', 'Staff', 'Customer Success'],
    ['Acheteur', 'Acheteuse', 'Staff', 'Operations'],
  ],
  es: [
    ['Director General', 'Directora General', 'C-Level', 'Executive', 'ceo'],
    ['Consejero Delegado', 'Consejera Delegada', 'C-Level', 'Executive', 'ceo'],
    ['Director Financiero', 'Directora Financiera', 'C-Level', 'Finance', 'cfo'],
    ['Director de Marketing', 'Directora de Marketing', 'Director', 'Marketing'],
    ['Director Comercial', 'Directora Comercial', 'Director', 'Sales'],
    ['Director de Tecnología', 'Directora de Tecnología', 'Director', 'Engineering'],
    ['Director de Recursos Humanos', 'Directora de Recursos Humanos', 'Director', 'Human Resources'],
    ['Director de Operaciones', 'Directora de Operaciones', 'Director', 'Operations'],
    ['Director de Sistemas', 'Directora de Sistemas', 'Director', 'IT'],
    ['Responsable de Datos', '', 'Director', 'Data & Analytics'],
    ['Gerente de Ventas', '', 'Manager', 'Sales'],
    ['Gerente de Marketing', '', 'Manager', 'Marketing'],
    ['Jefe de Proyecto', 'Jefa de Proyecto', 'Manager', 'Operations'],
    ['Jefe de Producto', 'Jefa de Producto', 'Manager', 'Product'],
    ['Responsable de Recursos Humanos', '', 'Manager', 'Human Resources'],
    ['Responsable de Sistemas', '', 'Manager', 'IT'],
    ['Ingeniero de Software', 'Ingeniera de Software', 'Staff', 'Engineering'],
    ['Desarrollador', 'Desarrolladora', 'Staff', 'Engineering'],
    ['Analista de Datos', '', 'Staff', 'Data & Analytics'],
    ['Ejecutivo de Cuentas', 'Ejecutiva de Cuentas', 'Staff', 'Sales'],
    ['Contable', '', 'Staff', 'Finance'],
    ['Abogado', 'Abogada', 'Staff', 'Legal'],
    ['Técnico de Soporte', 'Técnica de Soporte', 'Staff', 'Customer Success'],
    ['Administrador de Sistemas', 'Administradora de Sistemas', 'Staff', 'IT'],
    ['Técnico de Marketing', 'Técnica de Marketing', 'Staff', 'Marketing'],
  ],
  pt: [
    ['Diretor Presidente', 'Diretora Presidente', 'C-Level', 'Executive', 'ceo'],
    ['Diretor Financeiro', 'Diretora Financeira', 'C-Level', 'Finance', 'cfo'],
    ['Diretor Comercial', 'Diretora Comercial', 'Director', 'Sales'],
    ['Diretor de Marketing', 'Diretora de Marketing', 'Director', 'Marketing'],
    ['Diretor de Tecnologia', 'Diretora de Tecnologia', 'Director', 'Engineering'],
    ['Diretor de Recursos Humanos', 'Diretora de Recursos Humanos', 'Director', 'Human Resources'],
    ['Gerente de Marketing', '', 'Manager', 'Marketing'],
    ['Gerente Comercial', '', 'Manager', 'Sales'],
    ['Gerente de TI', '', 'Manager', 'IT'],
    ['Coordenador de Projetos', 'Coordenadora de Projetos', 'Manager', 'Operations'],
    ['Gerente de Produto', '', 'Manager', 'Product'],
    ['Analista de Sistemas', '', 'Staff', 'IT'],
    ['Desenvolvedor', 'Desenvolvedora', 'Staff', 'Engineering'],
    ['Analista de Dados', '', 'Staff', 'Data & Analytics'],
    ['Analista Financeiro', 'Analista Financeira', 'Staff', 'Finance'],
    ['Executivo de Contas', 'Executiva de Contas', 'Staff', 'Sales'],
    ['Advogado', 'Advogada', 'Staff', 'Legal'],
    ['Analista de RH', '', 'Staff', 'Human Resources'],
    ['Analista de Suporte', '', 'Staff', 'Customer Success'],
    ['Analista de Marketing', '', 'Staff', 'Marketing'],
  ],
};

function englishTitles(): Title[] {
  const out: Title[] = [];
  for (const [title, fn, role] of C_LEVEL) out.push({ title, level: 'C-Level', fn, role });
  for (const [fn, areas] of Object.entries(AREAS) as [Exclude<TitleFunction, 'Executive'>, string[]][]) {
    for (const a of areas) {
      out.push({ title: `VP of ${a}`, level: 'VP', fn }, { title: `Vice President, ${a}`, level: 'VP', fn });
      out.push({ title: `Director of ${a}`, level: 'Director', fn }, { title: `Head of ${a}`, level: 'Director', fn });
    }
    const first = areas[0];
    out.push(
      { title: `SVP, ${first}`, level: 'VP', fn },
      { title: `Senior Vice President of ${first}`, level: 'VP', fn },
      { title: `EVP, ${first}`, level: 'VP', fn },
    );
    out.push({ title: `Senior Director, ${first}`, level: 'Director', fn }, { title: `${first} Director`, level: 'Director', fn });
    for (const t of MANAGERS[fn]) out.push({ title: t, level: 'Manager', fn });
    for (const t of STAFF[fn]) out.push({ title: t, level: 'Staff', fn });
  }
  return out;
}

function localTitles(lang: Exclude<TitleLanguage, 'en'>): Title[] {
  return LOCAL[lang].map(([title, feminine, level, fn, role]) => ({ title, ...(feminine ? { feminine } : {}), level, fn, ...(role ? { role } : {}) }));
}

/** Every title, grouped by language, then by level. */
export const TITLES: Record<TitleLanguage, Record<TitleLevel, Title[]>> = (() => {
  const group = (list: Title[]) => {
    const by = { 'C-Level': [], VP: [], Director: [], Manager: [], Staff: [] } as Record<TitleLevel, Title[]>;
    for (const t of list) by[t.level].push(t);
    return by;
  };
  return { en: group(englishTitles()), de: group(localTitles('de')), fr: group(localTitles('fr')), es: group(localTitles('es')), pt: group(localTitles('pt')) };
})();

/** Share of titles by level in a company's contacts. */
export const LEVEL_WEIGHTS: [TitleLevel, number][] = [
  ['C-Level', 7],
  ['VP', 10],
  ['Director', 17],
  ['Manager', 26],
  ['Staff', 40],
];

/** How often each function appears below C-level. */
export const FUNCTION_WEIGHTS: [Exclude<TitleFunction, 'Executive'>, number][] = [
  ['Marketing', 14],
  ['Sales', 18],
  ['Engineering', 13],
  ['IT', 10],
  ['Finance', 8],
  ['Human Resources', 7],
  ['Operations', 10],
  ['Legal', 3],
  ['Customer Success', 7],
  ['Product', 5],
  ['Data & Analytics', 6],
];
