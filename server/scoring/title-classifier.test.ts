import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyTitle, TITLE_FUNCTIONS, TITLE_LEVELS, TitleClassificationSchema, type TitleFunction, type TitleLevel } from './title-classifier.ts';

type Row = readonly [title: string, level: TitleLevel, fn: TitleFunction];

// Every row is a real-world title as it appears in CRM/lead data, with the reading a sales-ops team expects.
const C_LEVEL: Row[] = [
  ['CEO', 'C-Level', 'Executive'],
  ['Chief Executive Officer', 'C-Level', 'Executive'],
  ['Founder & CEO', 'C-Level', 'Executive'],
  ['CEO & Co-Founder', 'C-Level', 'Executive'],
  ['President & CEO', 'C-Level', 'Executive'],
  ['Co-CEO', 'C-Level', 'Executive'],
  ['Co-Founder & CTO', 'C-Level', 'Engineering'], // a named function beats the generic "Executive"
  ['Founder, Head of Product', 'C-Level', 'Product'],
  ['Founder', 'C-Level', 'Executive'],
  ['Cofounder', 'C-Level', 'Executive'],
  ['Owner', 'C-Level', 'Executive'],
  ['Business Owner', 'C-Level', 'Executive'],
  ['Franchise Owner', 'C-Level', 'Executive'],
  ['President', 'C-Level', 'Executive'],
  ['Chairman of the Board', 'C-Level', 'Executive'],
  ['Board Member', 'C-Level', 'Executive'],
  ['Non-Executive Director', 'C-Level', 'Executive'],
  ['Managing Director', 'C-Level', 'Executive'],
  ['Managing Partner', 'C-Level', 'Executive'],
  ['Partner', 'C-Level', 'Executive'],
  ['Tax Partner', 'C-Level', 'Finance'],
  ['Principal', 'C-Level', 'Executive'],
  ['Self-Employed', 'C-Level', 'Executive'],
  ['CFO', 'C-Level', 'Finance'],
  ['Chief Financial Officer', 'C-Level', 'Finance'],
  ['EVP & CFO', 'C-Level', 'Finance'],
  ['CTO', 'C-Level', 'Engineering'],
  ['Chief Technology Officer', 'C-Level', 'Engineering'],
  ['CMO', 'C-Level', 'Marketing'],
  ['Chief Marketing Officer', 'C-Level', 'Marketing'],
  ['Chief Growth Officer', 'C-Level', 'Marketing'],
  ['CIO', 'C-Level', 'IT'],
  ['Chief Information Officer', 'C-Level', 'IT'],
  ['CISO', 'C-Level', 'Information Security'],
  ['Chief Information Security Officer', 'C-Level', 'Information Security'],
  ['COO', 'C-Level', 'Operations'],
  ['Chief Operating Officer', 'C-Level', 'Operations'],
  ['CRO', 'C-Level', 'Sales'],
  ['Chief Revenue Officer', 'C-Level', 'Sales'],
  ['Chief Commercial Officer', 'C-Level', 'Sales'],
  ['Chief People Officer', 'C-Level', 'Human Resources'],
  ['CHRO', 'C-Level', 'Human Resources'],
  ['Chief Product Officer', 'C-Level', 'Product'],
  ['Chief Data Officer', 'C-Level', 'Data & Analytics'],
  ['Chief Customer Officer', 'C-Level', 'Customer Success'],
  ['Chief Legal Officer', 'C-Level', 'Legal'],
  ['General Counsel', 'C-Level', 'Legal'],
  ['SVP & General Counsel', 'C-Level', 'Legal'],
  ['Chief Medical Officer', 'C-Level', 'Healthcare'],
  ['Chief Nursing Officer', 'C-Level', 'Healthcare'],
  ['Chief Scientific Officer', 'C-Level', 'Research'],
  ['Chief Strategy Officer', 'C-Level', 'Executive'],
  ['Chief Procurement Officer', 'C-Level', 'Procurement'],
  ['Chief Digital Officer', 'C-Level', 'Other'],
  ['Deputy CEO', 'C-Level', 'Executive'],
  ['Vice Chairman', 'C-Level', 'Executive'],
  ['Co-Owner', 'C-Level', 'Executive'],
  ['Principal at Acme Consulting', 'C-Level', 'Executive'],
  ['Vice President and Chief Accounting Officer', 'C-Level', 'Finance'], // the officer title outranks the VP grade
];

const VP: Row[] = [
  ['VP of Demand Gen', 'VP', 'Marketing'],
  ['VP Marketing', 'VP', 'Marketing'],
  ['Vice President', 'VP', 'Other'],
  ['Vice President, Sales', 'VP', 'Sales'],
  ['Vice-President of Engineering', 'VP', 'Engineering'],
  ['SVP, Global Sales', 'VP', 'Sales'],
  ['Senior Vice President of Finance', 'VP', 'Finance'],
  ['EVP Operations', 'VP', 'Operations'],
  ['AVP, IT Infrastructure', 'VP', 'IT'],
  ['Assistant Vice President', 'VP', 'Other'],
  ['RVP Sales', 'VP', 'Sales'],
  ['V.P. Customer Success', 'VP', 'Customer Success'],
  ['VP People', 'VP', 'Human Resources'],
  ['VP, Information Security', 'VP', 'Information Security'],
  ['VP of Product', 'VP', 'Product'],
  ['VP of R&D', 'VP', 'Engineering'],
  ['VP Data & Analytics', 'VP', 'Data & Analytics'],
  ['VP, Head of Sales', 'VP', 'Sales'],
  ['General Manager', 'VP', 'Executive'],
  ['VP & GM, EMEA', 'VP', 'Executive'],
  ['Deputy General Counsel', 'VP', 'Legal'],
  ['Vice President of Procurement', 'VP', 'Procurement'],
];

const DIRECTOR: Row[] = [
  ['Director of Sales', 'Director', 'Sales'],
  ['Director, Marketing', 'Director', 'Marketing'],
  ['Marketing Director', 'Director', 'Marketing'],
  ['Sr. Dir. of Mktg', 'Director', 'Marketing'],
  ['Senior Director, Product Management', 'Director', 'Product'],
  ['Director of Engineering', 'Director', 'Engineering'],
  ['IT Director', 'Director', 'IT'],
  ['Director of Information Technology', 'Director', 'IT'],
  ['Head of IT', 'Director', 'IT'],
  ['Head of Growth', 'Director', 'Marketing'],
  ['Head of People', 'Director', 'Human Resources'],
  ['Head of Data Science', 'Director', 'Data & Analytics'],
  ['Head of Security', 'Director', 'Information Security'],
  ['Head of Design', 'Director', 'Design'],
  ['Head of Customer Success', 'Director', 'Customer Success'],
  ['Head of Procurement', 'Director', 'Procurement'],
  ['Director of Finance', 'Director', 'Finance'],
  ['Finance Director', 'Director', 'Finance'],
  ['Director of Human Resources', 'Director', 'Human Resources'],
  ['Director of Operations', 'Director', 'Operations'],
  ['Director, Legal Affairs', 'Director', 'Legal'],
  ['Director of Partnerships', 'Director', 'Sales'],
  ['Sales & Marketing Director', 'Director', 'Sales'], // leftmost business function leads
  ['Executive Director', 'Director', 'Other'],
  ['Associate Director, Clinical Research', 'Director', 'Research'],
  ['Creative Director', 'Director', 'Design'],
  ['Art Director', 'Director', 'Design'],
  ['Medical Director', 'Director', 'Healthcare'],
  ['Director of Nursing', 'Director', 'Healthcare'],
  ['Controller', 'Director', 'Finance'],
  ['Financial Controller', 'Director', 'Finance'],
  ['Chief of Staff', 'Director', 'Executive'],
  ['Chief of Staff to the CEO', 'Director', 'Executive'],
  ['Dean of Students', 'Director', 'Education'],
  ['Elementary School Principal', 'Director', 'Education'],
  ['Account Director', 'Director', 'Sales'],
  ['Director', 'Director', 'Other'],
  ['Assistant Director of Marketing', 'Director', 'Marketing'],
  ['Assistant General Manager', 'Director', 'Executive'],
  ['Associate General Counsel', 'Director', 'Legal'],
  ['Chief Engineer', 'Director', 'Engineering'],
];

const MANAGER: Row[] = [
  ['Senior Manager', 'Manager', 'Other'],
  ['Marketing Manager', 'Manager', 'Marketing'],
  ['Product Marketing Manager', 'Manager', 'Marketing'],
  ['Marketing Operations Manager', 'Manager', 'Marketing'],
  ['Demand Generation Manager', 'Manager', 'Marketing'],
  ['Social Media Manager', 'Manager', 'Marketing'],
  ['Events Manager', 'Manager', 'Marketing'],
  ['Sales Manager', 'Manager', 'Sales'],
  ['Regional Sales Manager', 'Manager', 'Sales'],
  ['Business Development Manager', 'Manager', 'Sales'],
  ['Account Manager', 'Manager', 'Sales'],
  ['Key Account Manager', 'Manager', 'Sales'],
  ['Sales Operations Manager', 'Manager', 'Sales'],
  ['RevOps Manager', 'Manager', 'Sales'],
  ['Engineering Manager', 'Manager', 'Engineering'],
  ['Software Development Manager', 'Manager', 'Engineering'],
  ['QA Manager', 'Manager', 'Engineering'],
  ['Technical Program Manager', 'Manager', 'Engineering'],
  ['IT Manager', 'Manager', 'IT'],
  ['IT Project Manager', 'Manager', 'IT'],
  ['Information Security Manager', 'Manager', 'Information Security'],
  ['Product Manager', 'Manager', 'Product'],
  ['Senior Product Manager', 'Manager', 'Product'],
  ['Group Product Manager', 'Manager', 'Product'],
  ['Sr. PM', 'Manager', 'Product'],
  ['UX Manager', 'Manager', 'Design'],
  ['Analytics Manager', 'Manager', 'Data & Analytics'],
  ['Finance Manager', 'Manager', 'Finance'],
  ['Tax Manager', 'Manager', 'Finance'],
  ['FP&A Manager', 'Manager', 'Finance'],
  ['Assistant Controller', 'Manager', 'Finance'],
  ['HR Manager', 'Manager', 'Human Resources'],
  ['Recruiting Manager', 'Manager', 'Human Resources'],
  ['L&D Manager', 'Manager', 'Human Resources'],
  ['Talent Acquisition Lead', 'Manager', 'Human Resources'],
  ['Operations Manager', 'Manager', 'Operations'],
  ['Office Manager', 'Manager', 'Operations'],
  ['Project Manager', 'Manager', 'Operations'],
  ['Program Manager', 'Manager', 'Operations'],
  ['Warehouse Supervisor', 'Manager', 'Operations'],
  ['Supply Chain Manager', 'Manager', 'Operations'],
  ['Procurement Manager', 'Manager', 'Procurement'],
  ['Category Manager', 'Manager', 'Procurement'],
  ['Compliance Manager', 'Manager', 'Legal'],
  ['Contracts Manager', 'Manager', 'Legal'],
  ['Customer Success Manager', 'Manager', 'Customer Success'],
  ['CSM', 'Manager', 'Customer Success'],
  ['Support Manager', 'Manager', 'Customer Success'],
  ['Nurse Manager', 'Manager', 'Healthcare'],
  ['Team Lead, Customer Support', 'Manager', 'Customer Success'],
  ['Marketing Lead', 'Manager', 'Marketing'],
  ['Sales Team Leader', 'Manager', 'Sales'],
  ['Assistant Manager', 'Manager', 'Other'],
  ['Mgr, Mktg Ops', 'Manager', 'Marketing'],
  ['Partner Manager', 'Manager', 'Sales'],
  ['Partner Marketing Manager', 'Manager', 'Marketing'],
  ['Research Manager', 'Manager', 'Research'],
  ['Principal Product Manager', 'Manager', 'Product'],
  ['Strategic Partner Manager', 'Manager', 'Sales'],
  ['Marketing Lead EMEA', 'Manager', 'Marketing'],
  ['Team Lead', 'Manager', 'Other'],
  ['Head Nurse', 'Manager', 'Healthcare'],
  ['Risk Manager', 'Manager', 'Finance'],
];

const STAFF: Row[] = [
  ['Account Executive', 'Staff', 'Sales'],
  ['Senior Account Executive', 'Staff', 'Sales'],
  ['Sr. AE', 'Staff', 'Sales'],
  ['SDR', 'Staff', 'Sales'],
  ['BDR', 'Staff', 'Sales'],
  ['Sales Development Representative', 'Staff', 'Sales'],
  ['Inside Sales Representative', 'Staff', 'Sales'],
  ['Sales Engineer', 'Staff', 'Sales'],
  ['Solutions Consultant', 'Staff', 'Sales'],
  ['Sales Associate', 'Staff', 'Sales'],
  ['Medical Sales Representative', 'Staff', 'Sales'],
  ['Marketing Specialist', 'Staff', 'Marketing'],
  ['Marketing Coordinator', 'Staff', 'Marketing'],
  ['Content Strategist', 'Staff', 'Marketing'],
  ['SEO Specialist', 'Staff', 'Marketing'],
  ['Copywriter', 'Staff', 'Marketing'],
  ['Lead Generation Specialist', 'Staff', 'Marketing'],
  ['Marketing Analyst', 'Staff', 'Marketing'],
  ['Developer Advocate', 'Staff', 'Marketing'],
  ['Software Engineer', 'Staff', 'Engineering'],
  ['Senior Software Engineer', 'Staff', 'Engineering'],
  ['Staff Engineer', 'Staff', 'Engineering'],
  ['Principal Engineer', 'Staff', 'Engineering'],
  ['Lead Engineer', 'Staff', 'Engineering'],
  ['Tech Lead', 'Staff', 'Engineering'],
  ['Sr. Eng', 'Staff', 'Engineering'],
  ['Frontend Developer', 'Staff', 'Engineering'],
  ['Full-Stack Developer', 'Staff', 'Engineering'],
  ['DevOps Engineer', 'Staff', 'Engineering'],
  ['SRE', 'Staff', 'Engineering'],
  ['Site Reliability Engineer', 'Staff', 'Engineering'],
  ['QA Engineer', 'Staff', 'Engineering'],
  ['Mechanical Engineer', 'Staff', 'Engineering'],
  ['Salesforce Developer', 'Staff', 'Engineering'],
  ['Systems Administrator', 'Staff', 'IT'],
  ['Network Engineer', 'Staff', 'IT'],
  ['Help Desk Technician', 'Staff', 'IT'],
  ['IT Support Specialist', 'Staff', 'IT'],
  ['Database Administrator', 'Staff', 'IT'],
  ['IT Consultant', 'Staff', 'IT'],
  ['Systems Analyst', 'Staff', 'IT'],
  ['Security Analyst', 'Staff', 'Information Security'],
  ['SOC Analyst', 'Staff', 'Information Security'],
  ['Penetration Tester', 'Staff', 'Information Security'],
  ['Security Engineer', 'Staff', 'Information Security'],
  ['Product Owner', 'Staff', 'Product'],
  ['Product Analyst', 'Staff', 'Product'],
  ['Product Designer', 'Staff', 'Design'],
  ['UX Designer', 'Staff', 'Design'],
  ['UX Researcher', 'Staff', 'Design'],
  ['Graphic Designer', 'Staff', 'Design'],
  ['Data Analyst', 'Staff', 'Data & Analytics'],
  ['Data Scientist', 'Staff', 'Data & Analytics'],
  ['Data Engineer', 'Staff', 'Data & Analytics'],
  ['Machine Learning Engineer', 'Staff', 'Data & Analytics'],
  ['BI Developer', 'Staff', 'Data & Analytics'],
  ['Business Analyst', 'Staff', 'Data & Analytics'],
  ['Accountant', 'Staff', 'Finance'],
  ['Staff Accountant', 'Staff', 'Finance'],
  ['Accounts Payable Specialist', 'Staff', 'Finance'],
  ['Financial Analyst', 'Staff', 'Finance'],
  ['FP&A Analyst', 'Staff', 'Finance'],
  ['Bookkeeper', 'Staff', 'Finance'],
  ['Internal Auditor', 'Staff', 'Finance'],
  ['Credit Controller', 'Staff', 'Finance'],
  ['Payroll Specialist', 'Staff', 'Finance'],
  ['Recruiter', 'Staff', 'Human Resources'],
  ['Technical Recruiter', 'Staff', 'Human Resources'],
  ['Sales Recruiter', 'Staff', 'Human Resources'],
  ['Talent Acquisition Specialist', 'Staff', 'Human Resources'],
  ['HR Business Partner', 'Staff', 'Human Resources'],
  ['HRBP', 'Staff', 'Human Resources'],
  ['HR Generalist', 'Staff', 'Human Resources'],
  ['Compensation Analyst', 'Staff', 'Human Resources'],
  ['Paralegal', 'Staff', 'Legal'],
  ['Corporate Counsel', 'Staff', 'Legal'],
  ['Legal Counsel', 'Staff', 'Legal'],
  ['Associate Attorney', 'Staff', 'Legal'],
  ['Compliance Analyst', 'Staff', 'Legal'],
  ['Data Protection Officer', 'Staff', 'Legal'],
  ['Customer Support Representative', 'Staff', 'Customer Success'],
  ['Support Engineer', 'Staff', 'Customer Success'],
  ['Technical Support Specialist', 'Staff', 'Customer Success'],
  ['Implementation Consultant', 'Staff', 'Customer Success'],
  ['Onboarding Specialist', 'Staff', 'Customer Success'],
  ['Buyer', 'Staff', 'Procurement'],
  ['Purchasing Agent', 'Staff', 'Procurement'],
  ['Media Buyer', 'Staff', 'Marketing'],
  ['Logistics Coordinator', 'Staff', 'Operations'],
  ['Operations Analyst', 'Staff', 'Operations'],
  ['Project Coordinator', 'Staff', 'Operations'],
  ['Executive Assistant', 'Staff', 'Operations'],
  ['Executive Assistant to the CEO', 'Staff', 'Operations'],
  ['Assistant to the CFO', 'Staff', 'Operations'],
  ['Administrative Assistant', 'Staff', 'Operations'],
  ['EA to Founder', 'Staff', 'Operations'],
  ['Receptionist', 'Staff', 'Operations'],
  ['Nurse Practitioner', 'Staff', 'Healthcare'],
  ['Registered Nurse', 'Staff', 'Healthcare'],
  ['RN', 'Staff', 'Healthcare'],
  ['Physician', 'Staff', 'Healthcare'],
  ['Pharmacist', 'Staff', 'Healthcare'],
  ['Physical Therapist', 'Staff', 'Healthcare'],
  ['Research Nurse', 'Staff', 'Healthcare'],
  ['Professor', 'Staff', 'Education'],
  ['Associate Professor of Marketing', 'Staff', 'Education'],
  ['Teacher', 'Staff', 'Education'],
  ['Lecturer', 'Staff', 'Education'],
  ['Instructional Designer', 'Staff', 'Education'],
  ['Librarian', 'Staff', 'Education'],
  ['Teaching Assistant', 'Staff', 'Education'],
  ['Research Scientist', 'Staff', 'Research'],
  ['Postdoctoral Researcher', 'Staff', 'Research'],
  ['Lab Technician', 'Staff', 'Research'],
  ['Principal Investigator', 'Staff', 'Research'],
  ['Consultant', 'Staff', 'Other'],
  ['Principal Consultant', 'Staff', 'Other'],
  ['Intern', 'Staff', 'Other'],
  ['Marketing Intern', 'Staff', 'Marketing'],
  ['Senior Associate', 'Staff', 'Other'],
  ['Process Owner', 'Staff', 'Other'],
  ['Air Traffic Controller', 'Staff', 'Other'],
  ['Assistant Professor', 'Staff', 'Education'],
  ['People Partner', 'Staff', 'Human Resources'],
  ['Finance Business Partner', 'Staff', 'Finance'],
  ['Customer Success Engineer', 'Staff', 'Customer Success'],
  ['Sales Trainer', 'Staff', 'Sales'],
  ['Scrum Master', 'Staff', 'Engineering'],
  ['Loan Officer', 'Staff', 'Finance'],
  ['Investment Banker', 'Staff', 'Finance'],
  ["Director's Assistant", 'Staff', 'Operations'],
  ['Software Engineer, EA', 'Staff', 'Engineering'],
];

const NON_ENGLISH: Row[] = [
  // German
  ['Geschäftsführer', 'C-Level', 'Executive'],
  ['Geschäftsführerin', 'C-Level', 'Executive'],
  ['Geschaeftsfuehrer', 'C-Level', 'Executive'],
  ['Geschäftsführer Vertrieb', 'C-Level', 'Sales'],
  ['Gründer & Geschäftsführer', 'C-Level', 'Executive'],
  ['Inhaber', 'C-Level', 'Executive'],
  ['Vorstandsvorsitzender', 'C-Level', 'Executive'],
  ['Finanzvorstand', 'C-Level', 'Finance'],
  ['Leiter Vertrieb', 'Director', 'Sales'],
  ['Vertriebsleiter', 'Director', 'Sales'],
  ['Vertriebsleiterin', 'Director', 'Sales'],
  ['Marketingleiter', 'Director', 'Marketing'],
  ['Leiterin Marketing', 'Director', 'Marketing'],
  ['Abteilungsleiter', 'Director', 'Other'],
  ['Abteilungsleiter Einkauf', 'Director', 'Procurement'],
  ['Leiter Einkauf', 'Director', 'Procurement'],
  ['Leiter Personal', 'Director', 'Human Resources'],
  ['Personalleiterin', 'Director', 'Human Resources'],
  ['IT-Leiter', 'Director', 'IT'],
  ['Bereichsleiter Vertrieb', 'Director', 'Sales'],
  ['Kaufmännischer Leiter', 'Director', 'Finance'],
  ['Teamleiter Kundenservice', 'Manager', 'Customer Success'],
  ['Gruppenleiter IT', 'Manager', 'IT'],
  ['Projektleiter', 'Manager', 'Operations'],
  ['Produktmanagerin', 'Manager', 'Product'],
  ['Einkauf', 'Staff', 'Procurement'],
  ['Einkäufer', 'Staff', 'Procurement'],
  ['Personal', 'Staff', 'Human Resources'],
  ['Personalreferentin', 'Staff', 'Human Resources'],
  ['Softwareentwickler', 'Staff', 'Engineering'],
  ['Außendienstmitarbeiter', 'Staff', 'Sales'],
  ['Bilanzbuchhalterin', 'Staff', 'Finance'],
  ['Assistentin der Geschäftsführung', 'Staff', 'Operations'],
  ['Werkstudent Marketing', 'Staff', 'Marketing'],
  // French
  ['PDG', 'C-Level', 'Executive'],
  ['Président-Directeur Général', 'C-Level', 'Executive'],
  ['DG', 'C-Level', 'Executive'],
  ['Directeur Général', 'C-Level', 'Executive'],
  ['Directrice Générale Adjointe', 'C-Level', 'Executive'],
  ['Fondateur', 'C-Level', 'Executive'],
  ['Gérant', 'C-Level', 'Executive'],
  ['DAF', 'C-Level', 'Finance'],
  ['Directeur commercial', 'Director', 'Sales'],
  ['Directrice marketing', 'Director', 'Marketing'],
  ['Directeur des Ressources Humaines', 'Director', 'Human Resources'],
  ['Directeur des Systèmes d’Information', 'Director', 'IT'],
  ['Directeur technique', 'Director', 'Engineering'],
  ['Responsable RH', 'Manager', 'Human Resources'],
  ['Responsable des achats', 'Manager', 'Procurement'],
  ['Responsable Service Client', 'Manager', 'Customer Success'],
  ['Chef de projet', 'Manager', 'Operations'],
  ['Cheffe de produit', 'Manager', 'Product'],
  ['Chef des ventes', 'Manager', 'Sales'],
  ['Ingénieur commercial', 'Staff', 'Sales'],
  ['Développeuse', 'Staff', 'Engineering'],
  ['Comptable', 'Staff', 'Finance'],
  ['Chargée de communication', 'Staff', 'Marketing'],
  ['Chargé de recrutement', 'Staff', 'Human Resources'],
  ['Acheteuse', 'Staff', 'Procurement'],
  ['Assistante de direction', 'Staff', 'Operations'],
  ['Infirmière', 'Staff', 'Healthcare'],
  // Spanish
  ['Director General', 'C-Level', 'Executive'],
  ['Consejero Delegado', 'C-Level', 'Executive'],
  ['Director Financiero', 'C-Level', 'Finance'],
  ['Fundadora', 'C-Level', 'Executive'],
  ['Director de ventas', 'Director', 'Sales'],
  ['Directora de Recursos Humanos', 'Director', 'Human Resources'],
  ['Director de Tecnología', 'Director', 'Engineering'],
  ['Gerente General', 'C-Level', 'Executive'],
  ['Gerente de marketing', 'Manager', 'Marketing'],
  ['Jefe de compras', 'Manager', 'Procurement'],
  ['Jefa de Proyecto', 'Manager', 'Operations'],
  ['Jefe de Sistemas', 'Manager', 'IT'],
  ['Ejecutiva de Cuentas', 'Staff', 'Sales'],
  ['Ingeniero de Software', 'Staff', 'Engineering'],
  ['Analista de Datos', 'Staff', 'Data & Analytics'],
  ['Abogada', 'Staff', 'Legal'],
  ['Técnico de Soporte', 'Staff', 'Customer Success'],
  // Portuguese
  ['Diretor Presidente', 'C-Level', 'Executive'],
  ['Diretor', 'Director', 'Other'],
  ['Diretora Comercial', 'Director', 'Sales'],
  ['Gerente', 'Manager', 'Other'],
  ['Gerente de TI', 'Manager', 'IT'],
  ['Gerente de Vendas', 'Manager', 'Sales'],
  ['Coordenadora de Projetos', 'Manager', 'Operations'],
  ['Analista de Sistemas', 'Staff', 'IT'],
  ['Desenvolvedor', 'Staff', 'Engineering'],
  ['Executivo de Contas', 'Staff', 'Sales'],
  // Italian
  ['Amministratore Delegato', 'C-Level', 'Executive'],
  ['Titolare', 'C-Level', 'Executive'],
  ['Direttore vendite', 'Director', 'Sales'],
  ['Direttore Commerciale', 'Director', 'Sales'],
  ['Responsabile', 'Manager', 'Other'],
  ['Responsabile Marketing', 'Manager', 'Marketing'],
  ['Responsabile Acquisti', 'Manager', 'Procurement'],
  ['Sviluppatore Software', 'Staff', 'Engineering'],
  // Dutch
  ['Directeur', 'Director', 'Other'],
  ['Algemeen Directeur', 'C-Level', 'Executive'],
  ['Eigenaar', 'C-Level', 'Executive'],
  ['Hoofd Marketing', 'Director', 'Marketing'],
  ['Hoofd Inkoop', 'Director', 'Procurement'],
  ['Afdelingshoofd', 'Director', 'Other'],
  ['Teamleider Klantenservice', 'Manager', 'Customer Success'],
  ['Accountmanager', 'Manager', 'Sales'],
  ['Medewerker Inkoop', 'Staff', 'Procurement'],
];

const TABLE: Row[] = [...C_LEVEL, ...VP, ...DIRECTOR, ...MANAGER, ...STAFF, ...NON_ENGLISH];

describe('classifyTitle: real-world titles', () => {
  it('has a table of at least 200 distinct titles', () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(200);
    expect(new Set(TABLE.map(([t]) => t)).size).toBe(TABLE.length);
  });

  it.each(TABLE)('%s → %s / %s', (title, titleLevel, titleFunction) => {
    expect(classifyTitle(title)).toEqual({ titleLevel, titleFunction });
  });
});

describe('classifyTitle: blank, garbage and no current role', () => {
  // "MD" (managing director or physician) and a bare "Executive" are too ambiguous to call.
  it.each([
    '',
    '   ',
    '\t\n',
    '-',
    '.',
    '---',
    'n/a',
    'N/A',
    'none',
    'null',
    'unknown',
    'asdf',
    'xxx',
    '123',
    '!!!',
    '???',
    'Retired',
    'CEO (retired)',
    'Former CEO',
    'Ex-CFO',
    'Unemployed',
    'MD',
    'Executive',
    'Открытый',
  ])('%j → blank', (title) => {
    expect(classifyTitle(title)).toEqual({ titleLevel: '', titleFunction: '' });
  });

  it('treats non-string input from untyped sources as blank instead of throwing', () => {
    for (const v of [null, undefined, 42, {}, []]) expect(classifyTitle(v as unknown as string)).toEqual({ titleLevel: '', titleFunction: '' });
  });

  it('handles a very long title (only the start counts)', () => {
    expect(classifyTitle('VP Sales ' + 'x'.repeat(100_000))).toEqual({ titleLevel: 'VP', titleFunction: 'Sales' });
    expect(classifyTitle('a '.repeat(50_000) + 'CEO')).toEqual({ titleLevel: '', titleFunction: '' });
  });
});

describe('classifyTitle: case, accents, punctuation and whitespace', () => {
  const same = (variants: string[]) => {
    const first = classifyTitle(variants[0]);
    expect(first.titleLevel).not.toBe('');
    for (const v of variants.slice(1)) expect(classifyTitle(v), v).toEqual(first);
  };

  it('is case-insensitive', () => {
    same(['Vice President of Sales', 'VICE PRESIDENT OF SALES', 'vice president of sales', 'vIcE pReSiDeNt Of SaLeS']);
    same(['CEO', 'ceo', 'Ceo']);
  });

  it('is accent-insensitive', () => {
    same(['Geschäftsführer', 'Geschaftsfuhrer', 'GESCHÄFTSFÜHRER']);
    same(['Directeur Général', 'Directeur General', 'DIRECTEUR GÉNÉRAL']);
    same(['Director de Tecnología', 'Director de Tecnologia']);
    same(['Président-Directeur Général', 'President Directeur General']);
    // decomposed (NFD) input is the same title as composed (NFC)
    same(['Infirmière'.normalize('NFC'), 'Infirmière'.normalize('NFD')]);
  });

  it('is robust to punctuation and extra whitespace', () => {
    same(['VP, Sales', 'VP Sales', 'VP - Sales', 'VP | Sales', 'VP/Sales', '  VP   Sales  ', 'VP (Sales)', 'VP: Sales', 'VP – Sales', 'VP Sales.']);
    same(['Vice President', 'Vice-President', 'V.P.', 'VP']);
    same(['Co-Founder & CTO', 'Cofounder and CTO', 'co founder + cto', 'CO-FOUNDER/CTO']);
    same(['Sr. Director, Marketing', 'Sr Director Marketing', 'Senior Director of Marketing']);
    same(['C.E.O.', 'CEO']);
  });
});

describe('classifyTitle: outputs and determinism', () => {
  it('exports the levels most senior first and the function list', () => {
    expect(TITLE_LEVELS).toEqual(['C-Level', 'VP', 'Director', 'Manager', 'Staff']);
    expect(TITLE_FUNCTIONS).toContain('Executive');
    expect(TITLE_FUNCTIONS).toContain('Other');
    expect(new Set(TITLE_FUNCTIONS).size).toBe(TITLE_FUNCTIONS.length);
  });

  it('always returns a schema-valid classification, function blank exactly when level is blank (property)', () => {
    const words = fc.constantFrom(
      'VP',
      'Head of',
      'Director',
      'Senior',
      'Manager',
      'Sales',
      'Marketing',
      'Founder',
      'Assistant to the',
      'CEO',
      'IT',
      'Leiter',
      'Geschäftsführer',
      'Partner',
      'Owner',
      'Lead',
      'Principal',
      '&',
      ',',
      '/',
      '-',
      'of',
      'the',
      'Ingénieur',
      'Jefe',
      'x',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 80 }),
          fc.array(words, { maxLength: 8 }).map((w) => w.join(' ')),
        ),
        (title) => {
          const c = classifyTitle(title);
          expect(TitleClassificationSchema.parse(c)).toEqual(c);
          expect(c.titleFunction === '').toBe(c.titleLevel === '');
          expect(classifyTitle(title)).toEqual(c); // deterministic, no state carried between calls
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('gives the same answers however the calls are interleaved', () => {
    const titles = TABLE.map(([t]) => t);
    const first = titles.map(classifyTitle);
    const reversed = [...titles].reverse().map(classifyTitle).reverse();
    expect(reversed).toEqual(first);
  });

  it('classifies quickly (prints the throughput; never fails on time)', () => {
    const titles = TABLE.map(([t]) => t);
    const n = 200_000;
    for (let i = 0; i < 20_000; i++) classifyTitle(titles[i % titles.length]); // warm-up
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) classifyTitle(titles[i % titles.length]);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    console.log(`title-classifier: ${Math.round(n / seconds).toLocaleString('en-US')} titles/s (${n} classifications, ${titles.length} distinct titles)`);
    expect(seconds).toBeGreaterThan(0);
  });
});

describe('classifyTitle cache', () => {
  it('classifies a repeated title the same, each caller getting its own object', () => {
    const first = classifyTitle('VP of Marketing');
    first.titleLevel = 'Staff'; // a caller changing its copy
    const again = classifyTitle('VP of Marketing');
    expect(again).toEqual({ titleLevel: 'VP', titleFunction: 'Marketing' });
    expect(again).not.toBe(classifyTitle('VP of Marketing'));
  });
});
