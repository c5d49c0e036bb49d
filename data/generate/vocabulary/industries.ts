/**
 * Industries and sub-industries with their SIC (1987) and NAICS (2017) codes and descriptions, the revenue a
 * company of the industry typically makes per employee (to keep revenue consistent with size), and the words
 * its company names are made of. `naming` picks how names look: businesses ("Northwind Analytics"),
 * universities, schools, government bodies or non-profits.
 */

export type Naming = 'business' | 'university' | 'school' | 'government' | 'nonprofit';

export interface Subindustry {
  name: string;
  /** [SIC, SIC description, NAICS, NAICS description] alternatives. */
  codes: [string, string, string, string][];
  /** Words that end a company name of this sub-industry ("Analytics", "Freight" …). */
  words: string[];
  /** The same in the country's language, used now and then (German, French, Spanish, Portuguese …). */
  localWords?: Partial<Record<'de' | 'fr' | 'es' | 'pt' | 'it' | 'nl' | 'sv', string[]>>;
  naming?: Naming;
  /** Domain endings preferred over `.com` now and then (`io`, `ai` for software). */
  tlds?: string[];
  weight?: number;
  /** Smallest size tier (index in SIZE_TIERS) a company of this kind has: no 3-person hospital or airline. */
  minTier?: number;
  /** Company names may be two partners' surnames ("Harper & Cole"). */
  partners?: boolean;
}

export interface Industry {
  name: string;
  weight: number;
  /** Typical annual revenue per employee, USD. */
  revenuePerEmployee: number;
  subindustries: Subindustry[];
}

const S = (
  name: string,
  codes: [string, string, string, string][],
  words: string[],
  extra: Omit<Subindustry, 'name' | 'codes' | 'words'> = {},
): Subindustry => ({ name, codes, words, ...extra });

export const INDUSTRIES: Industry[] = [
  {
    name: 'Software',
    weight: 14,
    revenuePerEmployee: 260_000,
    subindustries: [
      S(
        'Application Software',
        [['7372', 'Prepackaged Software', '511210', 'Software Publishers']],
        ['Software', 'Labs', 'Apps', 'Technologies', 'Systems', 'Digital', ''],
        {
          tlds: ['io', 'app', 'co'],
          weight: 3,
          localWords: { de: ['Software', 'Systeme'], fr: ['Logiciels', 'Technologies'], es: ['Tecnología', 'Software'], pt: ['Tecnologia', 'Sistemas'] },
        },
      ),
      S(
        'Data & Analytics',
        [
          ['7374', 'Computer Processing and Data Preparation', '518210', 'Data Processing, Hosting, and Related Services'],
          ['7372', 'Prepackaged Software', '511210', 'Software Publishers'],
        ],
        ['Analytics', 'Data', 'Insights', 'Intelligence', 'AI', 'Metrics'],
        { tlds: ['io', 'ai'], weight: 2 },
      ),
      S(
        'IT Services',
        [
          ['7371', 'Computer Programming Services', '541511', 'Custom Computer Programming Services'],
          ['7373', 'Computer Integrated Systems Design', '541512', 'Computer Systems Design Services'],
        ],
        ['Solutions', 'Consulting', 'IT', 'Systems', 'Digital', 'Technologies', 'Infotech'],
        {
          weight: 3,
          localWords: { de: ['IT-Services', 'Systemhaus'], fr: ['Informatique', 'Conseil'], es: ['Soluciones', 'Sistemas'], pt: ['Soluções', 'Informática'] },
        },
      ),
      S(
        'Cybersecurity',
        [
          ['7372', 'Prepackaged Software', '511210', 'Software Publishers'],
          ['7373', 'Computer Integrated Systems Design', '541512', 'Computer Systems Design Services'],
        ],
        ['Security', 'Cyber', 'Defense', 'Shield', 'Secure'],
        { tlds: ['io'], weight: 1.5 },
      ),
      S(
        'Cloud Infrastructure',
        [['7374', 'Computer Processing and Data Preparation', '518210', 'Data Processing, Hosting, and Related Services']],
        ['Cloud', 'Networks', 'Compute', 'Stack', 'Infrastructure'],
        { tlds: ['io', 'cloud'], weight: 1.5 },
      ),
      S(
        'Marketing Technology',
        [['7372', 'Prepackaged Software', '511210', 'Software Publishers']],
        ['Marketing Cloud', 'Engage', 'Growth', 'Signals', 'Reach'],
        { tlds: ['io', 'ai'], weight: 1 },
      ),
      S('Financial Software', [['7372', 'Prepackaged Software', '511210', 'Software Publishers']], ['Ledger', 'Pay', 'Finance Cloud', 'Billing'], {
        tlds: ['io'],
        weight: 1,
      }),
    ],
  },
  {
    name: 'Financial Services',
    weight: 9,
    revenuePerEmployee: 420_000,
    subindustries: [
      S(
        'Banking',
        [
          ['6021', 'National Commercial Banks', '522110', 'Commercial Banking'],
          ['6022', 'State Commercial Banks', '522110', 'Commercial Banking'],
        ],
        ['Bank', 'Bancorp', 'Savings Bank', 'Trust'],
        { weight: 2, minTier: 1, localWords: { de: ['Bank', 'Privatbank'], fr: ['Banque'], es: ['Banco'], pt: ['Banco'], it: ['Banca'] } },
      ),
      S(
        'Insurance',
        [
          ['6411', 'Insurance Agents, Brokers, and Service', '524210', 'Insurance Agencies and Brokerages'],
          ['6311', 'Life Insurance', '524113', 'Direct Life Insurance Carriers'],
          ['6331', 'Fire, Marine, and Casualty Insurance', '524126', 'Direct Property and Casualty Insurance Carriers'],
        ],
        ['Insurance', 'Mutual', 'Assurance', 'Underwriters', 'Insurance Group'],
        { weight: 2, localWords: { de: ['Versicherung', 'Versicherungen'], fr: ['Assurances'], es: ['Seguros'], pt: ['Seguros'], it: ['Assicurazioni'] } },
      ),
      S(
        'Investment Management',
        [
          ['6282', 'Investment Advice', '523930', 'Investment Advice'],
          ['6211', 'Security Brokers, Dealers, and Flotation Companies', '523120', 'Securities Brokerage'],
        ],
        ['Capital', 'Asset Management', 'Investments', 'Partners', 'Wealth', 'Advisors'],
        { weight: 2 },
      ),
      S(
        'Payments',
        [
          ['6099', 'Functions Related to Depository Banking, NEC', '522320', 'Financial Transactions Processing, Reserve, and Clearinghouse Activities'],
          ['7389', 'Business Services, NEC', '522320', 'Financial Transactions Processing, Reserve, and Clearinghouse Activities'],
        ],
        ['Pay', 'Payments', 'Fintech', 'Money'],
        { tlds: ['io', 'co'], weight: 1.5 },
      ),
      S(
        'Lending',
        [
          ['6162', 'Mortgage Bankers and Loan Correspondents', '522292', 'Real Estate Credit'],
          ['6141', 'Personal Credit Institutions', '522291', 'Consumer Lending'],
        ],
        ['Lending', 'Mortgage', 'Credit', 'Finance', 'Home Loans'],
        { weight: 1 },
      ),
      S('Credit Unions', [['6061', 'Credit Unions, Federally Chartered', '522130', 'Credit Unions']], ['Credit Union', 'Community Credit Union'], {
        weight: 0.6,
        minTier: 1,
      }),
    ],
  },
  {
    name: 'Healthcare',
    weight: 9,
    revenuePerEmployee: 190_000,
    subindustries: [
      S(
        'Hospitals & Health Systems',
        [['8062', 'General Medical and Surgical Hospitals', '622110', 'General Medical and Surgical Hospitals']],
        ['Health', 'Health System', 'Medical Center', 'Healthcare', 'Hospital'],
        {
          weight: 2,
          minTier: 3,
          localWords: { de: ['Klinikum', 'Kliniken'], fr: ['Santé', 'Clinique'], es: ['Salud', 'Hospital'], pt: ['Saúde', 'Hospital'] },
        },
      ),
      S(
        'Medical Devices',
        [
          ['3841', 'Surgical and Medical Instruments and Apparatus', '339112', 'Surgical and Medical Instrument Manufacturing'],
          ['3845', 'Electromedical and Electrotherapeutic Apparatus', '334510', 'Electromedical and Electrotherapeutic Apparatus Manufacturing'],
        ],
        ['Medical', 'Devices', 'Surgical', 'Medtech', 'Instruments'],
        { weight: 1.5, localWords: { de: ['Medizintechnik'] } },
      ),
      S(
        'Pharmaceuticals',
        [['2834', 'Pharmaceutical Preparations', '325412', 'Pharmaceutical Preparation Manufacturing']],
        ['Pharma', 'Pharmaceuticals', 'Therapeutics', 'Labs'],
        { weight: 1.5, minTier: 1 },
      ),
      S(
        'Biotechnology',
        [
          ['8731', 'Commercial Physical and Biological Research', '541714', 'Research and Development in Biotechnology (except Nanobiotechnology)'],
          ['2836', 'Biological Products, Except Diagnostic Substances', '325414', 'Biological Product (except Diagnostic) Manufacturing'],
        ],
        ['Bio', 'Biosciences', 'Biotherapeutics', 'Genomics', 'Biologics'],
        { weight: 1.5 },
      ),
      S(
        'Clinics & Physician Practices',
        [
          ['8011', 'Offices and Clinics of Doctors of Medicine', '621111', 'Offices of Physicians (except Mental Health Specialists)'],
          ['8021', 'Offices and Clinics of Dentists', '621210', 'Offices of Dentists'],
        ],
        ['Family Medicine', 'Clinic', 'Medical Group', 'Physicians', 'Dental', 'Care'],
        { weight: 1.5, partners: true },
      ),
      S(
        'Diagnostics & Laboratories',
        [['8071', 'Medical Laboratories', '621511', 'Medical Laboratories']],
        ['Diagnostics', 'Labs', 'Laboratories', 'Pathology'],
        { weight: 1 },
      ),
      S(
        'Health IT',
        [['7372', 'Prepackaged Software', '511210', 'Software Publishers']],
        ['Health', 'Health Technologies', 'Clinical Systems', 'Care Technologies', 'Health Analytics'],
        { tlds: ['io'], weight: 1 },
      ),
    ],
  },
  {
    name: 'Manufacturing',
    weight: 10,
    revenuePerEmployee: 300_000,
    subindustries: [
      S(
        'Industrial Machinery',
        [
          ['3559', 'Special Industry Machinery, NEC', '333249', 'Other Industrial Machinery Manufacturing'],
          ['3569', 'General Industrial Machinery and Equipment, NEC', '333999', 'All Other Miscellaneous General Purpose Machinery Manufacturing'],
        ],
        ['Machinery', 'Industries', 'Equipment', 'Engineering', 'Automation', 'Works'],
        {
          weight: 2,
          localWords: {
            de: ['Maschinenbau', 'Anlagenbau', 'Technik'],
            fr: ['Industrie', 'Mécanique'],
            es: ['Maquinaria', 'Industrial'],
            it: ['Meccanica', 'Macchine'],
            pt: ['Máquinas'],
            sv: ['Industri'],
          },
        },
      ),
      S(
        'Automotive Parts',
        [['3714', 'Motor Vehicle Parts and Accessories', '336390', 'Other Motor Vehicle Parts Manufacturing']],
        ['Automotive', 'Components', 'Motors', 'Drivetrain', 'Mobility'],
        { weight: 1.5, localWords: { de: ['Fahrzeugtechnik', 'Automotive'] } },
      ),
      S(
        'Electronics & Semiconductors',
        [
          ['3674', 'Semiconductors and Related Devices', '334413', 'Semiconductor and Related Device Manufacturing'],
          ['3672', 'Printed Circuit Boards', '334412', 'Bare Printed Circuit Board Manufacturing'],
        ],
        ['Electronics', 'Semiconductor', 'Circuits', 'Microsystems', 'Photonics'],
        { weight: 1.5, localWords: { de: ['Elektronik'] } },
      ),
      S(
        'Chemicals & Plastics',
        [
          ['2821', 'Plastics Materials, Synthetic Resins, and Nonvulcanizable Elastomers', '325211', 'Plastics Material and Resin Manufacturing'],
          ['2869', 'Industrial Organic Chemicals, NEC', '325199', 'All Other Basic Organic Chemical Manufacturing'],
        ],
        ['Chemicals', 'Polymers', 'Materials', 'Plastics', 'Coatings'],
        { weight: 1, localWords: { de: ['Chemie', 'Kunststoffe'] } },
      ),
      S(
        'Food & Beverage Production',
        [
          ['2099', 'Food Preparations, NEC', '311999', 'All Other Miscellaneous Food Manufacturing'],
          ['2086', 'Bottled and Canned Soft Drinks and Carbonated Waters', '312111', 'Soft Drink Manufacturing'],
        ],
        ['Foods', 'Brewing', 'Beverages', 'Bakeries', 'Provisions'],
        { weight: 1.5, localWords: { de: ['Lebensmittel', 'Brauerei'], fr: ['Alimentaire'], es: ['Alimentos'], it: ['Alimentari'] } },
      ),
      S(
        'Aerospace & Defense',
        [['3728', 'Aircraft Parts and Auxiliary Equipment, NEC', '336413', 'Other Aircraft Parts and Auxiliary Equipment Manufacturing']],
        ['Aerospace', 'Aviation', 'Defense Systems', 'Avionics'],
        { weight: 0.8, minTier: 2 },
      ),
      S(
        'Metal Fabrication',
        [
          ['3441', 'Fabricated Structural Metal', '332312', 'Fabricated Structural Metal Manufacturing'],
          ['3599', 'Industrial and Commercial Machinery and Equipment, NEC', '332710', 'Machine Shops'],
        ],
        ['Metals', 'Steel', 'Fabrication', 'Metalworks', 'Precision'],
        { weight: 1.2, localWords: { de: ['Metallbau', 'Stahlbau'] } },
      ),
    ],
  },
  {
    name: 'Retail',
    weight: 7,
    revenuePerEmployee: 220_000,
    subindustries: [
      S(
        'E-commerce',
        [['5961', 'Catalog and Mail-Order Houses', '454110', 'Electronic Shopping and Mail-Order Houses']],
        ['Shop', 'Store', 'Direct', 'Goods', 'Market', 'Co.'],
        { tlds: ['co', 'shop'], weight: 2 },
      ),
      S(
        'Apparel & Fashion',
        [
          ['5651', 'Family Clothing Stores', '448140', 'Family Clothing Stores'],
          ['5621', "Women's Clothing Stores", '448120', "Women's Clothing Stores"],
        ],
        ['Apparel', 'Outfitters', 'Clothing', 'Collective', 'Threads'],
        { weight: 1.5, localWords: { fr: ['Mode'], it: ['Moda'], es: ['Moda'] } },
      ),
      S(
        'Grocery',
        [['5411', 'Grocery Stores', '445110', 'Supermarkets and Other Grocery (except Convenience) Stores']],
        ['Market', 'Grocers', 'Foods', 'Fresh Market', 'Supermarkets'],
        { weight: 1, minTier: 1 },
      ),
      S(
        'Home Improvement',
        [['5211', 'Lumber and Other Building Materials Dealers', '444110', 'Home Centers']],
        ['Home', 'Hardware', 'Home Centers', 'Supply'],
        { weight: 1 },
      ),
      S(
        'Consumer Electronics',
        [['5731', 'Radio, Television, and Consumer Electronics Stores', '443142', 'Electronics Stores']],
        ['Electronics', 'Tech Store', 'Gadgets'],
        { weight: 0.8 },
      ),
      S('Sporting Goods', [['5941', 'Sporting Goods Stores and Bicycle Shops', '451110', 'Sporting Goods Stores']], ['Sports', 'Outdoors', 'Cycles', 'Gear'], {
        weight: 0.8,
      }),
    ],
  },
  {
    name: 'Education',
    weight: 5,
    revenuePerEmployee: 120_000,
    subindustries: [
      S('Higher Education', [['8221', 'Colleges, Universities, and Professional Schools', '611310', 'Colleges, Universities, and Professional Schools']], [], {
        naming: 'university',
        weight: 2,
        minTier: 2,
      }),
      S('K-12 Education', [['8211', 'Elementary and Secondary Schools', '611110', 'Elementary and Secondary Schools']], [], {
        naming: 'school',
        weight: 2,
        minTier: 1,
      }),
      S(
        'EdTech & Training',
        [
          ['8299', 'Schools and Educational Services, NEC', '611430', 'Professional and Management Development Training'],
          ['7372', 'Prepackaged Software', '511210', 'Software Publishers'],
        ],
        ['Learning', 'Academy', 'Education', 'Training', 'Tutors'],
        { tlds: ['io', 'co'], weight: 1.5 },
      ),
    ],
  },
  {
    name: 'Telecommunications',
    weight: 3,
    revenuePerEmployee: 450_000,
    subindustries: [
      S(
        'Wireless Carriers',
        [['4812', 'Radiotelephone Communications', '517312', 'Wireless Telecommunications Carriers (except Satellite)']],
        ['Mobile', 'Wireless', 'Cellular', 'Telecom'],
        { weight: 1, minTier: 3 },
      ),
      S(
        'Internet Service Providers',
        [['4813', 'Telephone Communications, Except Radiotelephone', '517311', 'Wired Telecommunications Carriers']],
        ['Fiber', 'Broadband', 'Internet', 'Networks', 'Connect'],
        { weight: 1.5, minTier: 1, localWords: { de: ['Glasfaser', 'Netz'] } },
      ),
      S(
        'Cable & Satellite',
        [['4841', 'Cable and Other Pay Television Services', '515210', 'Cable and Other Subscription Programming']],
        ['Cable', 'Satellite', 'Communications'],
        { weight: 0.6, minTier: 3 },
      ),
      S(
        'Telecom Equipment',
        [
          ['3661', 'Telephone and Telegraph Apparatus', '334210', 'Telephone Apparatus Manufacturing'],
          [
            '3663',
            'Radio and Television Broadcasting and Communications Equipment',
            '334220',
            'Radio and Television Broadcasting and Wireless Communications Equipment Manufacturing',
          ],
        ],
        ['Communications', 'Networks', 'Telecom Systems', 'Radio'],
        { weight: 1 },
      ),
    ],
  },
  {
    name: 'Media',
    weight: 4,
    revenuePerEmployee: 250_000,
    subindustries: [
      S(
        'Publishing',
        [
          ['2711', 'Newspapers: Publishing, or Publishing and Printing', '511110', 'Newspaper Publishers'],
          ['2731', 'Books: Publishing, or Publishing and Printing', '511130', 'Book Publishers'],
        ],
        ['Publishing', 'Press', 'Media', 'Books', 'Times'],
        { weight: 1, localWords: { de: ['Verlag'], fr: ['Éditions'], es: ['Editorial'] } },
      ),
      S(
        'Broadcasting',
        [
          ['4833', 'Television Broadcasting Stations', '515120', 'Television Broadcasting'],
          ['4832', 'Radio Broadcasting Stations', '515112', 'Radio Stations'],
        ],
        ['Broadcasting', 'Radio', 'TV', 'Networks'],
        { weight: 0.8, minTier: 1 },
      ),
      S(
        'Film & Video Production',
        [['7812', 'Motion Picture and Video Tape Production', '512110', 'Motion Picture and Video Production']],
        ['Studios', 'Pictures', 'Films', 'Productions', 'Entertainment'],
        { weight: 1 },
      ),
      S(
        'Advertising & Marketing',
        [
          ['7311', 'Advertising Agencies', '541810', 'Advertising Agencies'],
          ['8743', 'Public Relations Services', '541820', 'Public Relations Agencies'],
        ],
        ['Agency', 'Creative', 'Communications', 'Media', 'Brand Partners', 'Collective'],
        { weight: 1.5, localWords: { de: ['Werbeagentur', 'Kommunikation'], fr: ['Communication'], es: ['Comunicación'] } },
      ),
      S(
        'Digital Media',
        [['7375', 'Information Retrieval Services', '519130', 'Internet Publishing and Broadcasting and Web Search Portals']],
        ['Media', 'Digital', 'Network', 'Stream'],
        { tlds: ['io', 'tv', 'co'], weight: 1 },
      ),
    ],
  },
  {
    name: 'Transportation',
    weight: 5,
    revenuePerEmployee: 260_000,
    subindustries: [
      S(
        'Trucking',
        [['4213', 'Trucking, Except Local', '484121', 'General Freight Trucking, Long-Distance, Truckload']],
        ['Trucking', 'Freight', 'Transport', 'Carriers', 'Express'],
        { weight: 1.5, localWords: { de: ['Spedition', 'Transporte'], fr: ['Transports'], es: ['Transportes'], pt: ['Transportes'] } },
      ),
      S(
        'Logistics & Freight Forwarding',
        [['4731', 'Arrangement of Transportation of Freight and Cargo', '488510', 'Freight Transportation Arrangement']],
        ['Logistics', 'Freight', 'Supply Chain', 'Cargo', 'Forwarding'],
        { weight: 2, localWords: { de: ['Logistik'], fr: ['Logistique'], es: ['Logística'], pt: ['Logística'], it: ['Logistica'], nl: ['Logistiek'] } },
      ),
      S(
        'Airlines & Aviation',
        [['4512', 'Air Transportation, Scheduled', '481111', 'Scheduled Passenger Air Transportation']],
        ['Airways', 'Air', 'Aviation', 'Airlines'],
        { weight: 0.4, minTier: 3 },
      ),
      S(
        'Warehousing',
        [['4225', 'General Warehousing and Storage', '493110', 'General Warehousing and Storage']],
        ['Warehousing', 'Distribution', 'Fulfillment', 'Storage'],
        { weight: 1 },
      ),
      S(
        'Maritime Shipping',
        [['4412', 'Deep Sea Foreign Transportation of Freight', '483111', 'Deep Sea Freight Transportation']],
        ['Shipping', 'Maritime', 'Lines', 'Marine'],
        { weight: 0.5, minTier: 2 },
      ),
    ],
  },
  {
    name: 'Energy',
    weight: 3,
    revenuePerEmployee: 850_000,
    subindustries: [
      S('Electric Utilities', [['4911', 'Electric Services', '221122', 'Electric Power Distribution']], ['Power', 'Electric', 'Energy', 'Utilities'], {
        weight: 1,
        minTier: 2,
        localWords: { de: ['Stadtwerke', 'Energie'], fr: ['Énergie'], es: ['Energía'] },
      }),
      S(
        'Oil & Gas',
        [
          ['1311', 'Crude Petroleum and Natural Gas', '211120', 'Crude Petroleum Extraction'],
          ['1381', 'Drilling Oil and Gas Wells', '213111', 'Drilling Oil and Gas Wells'],
        ],
        ['Energy', 'Petroleum', 'Resources', 'Oil & Gas', 'Exploration'],
        { weight: 1, minTier: 1 },
      ),
      S(
        'Renewable Energy',
        [
          ['4911', 'Electric Services', '221114', 'Solar Electric Power Generation'],
          ['4911', 'Electric Services', '221115', 'Wind Electric Power Generation'],
        ],
        ['Solar', 'Renewables', 'Wind', 'Clean Energy', 'Energy'],
        { weight: 1.5, localWords: { de: ['Solar', 'Windkraft'] } },
      ),
      S(
        'Natural Gas Distribution',
        [['4924', 'Natural Gas Distribution', '221210', 'Natural Gas Distribution']],
        ['Gas', 'Gas & Electric', 'Energy Services'],
        { weight: 0.5, minTier: 2 },
      ),
    ],
  },
  {
    name: 'Professional Services',
    weight: 10,
    revenuePerEmployee: 180_000,
    subindustries: [
      S(
        'Management Consulting',
        [['8742', 'Management Consulting Services', '541611', 'Administrative Management and General Management Consulting Services']],
        ['Consulting', 'Advisors', 'Partners', 'Group', 'Strategy', 'Associates'],
        {
          weight: 3,
          partners: true,
          localWords: { de: ['Beratung', 'Consulting'], fr: ['Conseil'], es: ['Consultores'], pt: ['Consultoria'], it: ['Consulenza'] },
        },
      ),
      S('Legal Services', [['8111', 'Legal Services', '541110', 'Offices of Lawyers']], ['LLP', 'Law', 'Legal', 'Attorneys'], {
        weight: 1.5,
        partners: true,
        localWords: { de: ['Rechtsanwälte'], fr: ['Avocats'], es: ['Abogados'], pt: ['Advogados'] },
      }),
      S(
        'Accounting',
        [['8721', 'Accounting, Auditing, and Bookkeeping Services', '541211', 'Offices of Certified Public Accountants']],
        ['CPAs', 'Accounting', 'Tax Advisors', 'Audit'],
        { weight: 1.5, partners: true, localWords: { de: ['Steuerberatung', 'Wirtschaftsprüfung'] } },
      ),
      S(
        'Staffing & Recruiting',
        [
          ['7363', 'Help Supply Services', '561320', 'Temporary Help Services'],
          ['7361', 'Employment Agencies', '561311', 'Employment Placement Agencies'],
        ],
        ['Staffing', 'Talent', 'Recruiting', 'Search', 'Workforce'],
        { weight: 1.5 },
      ),
      S(
        'Architecture & Engineering',
        [
          ['8711', 'Engineering Services', '541330', 'Engineering Services'],
          ['8712', 'Architectural Services', '541310', 'Architectural Services'],
        ],
        ['Engineering', 'Architects', 'Design', 'Engineers'],
        { weight: 1.5, partners: true, localWords: { de: ['Ingenieure', 'Architekten'] } },
      ),
    ],
  },
  {
    name: 'Government',
    weight: 2,
    revenuePerEmployee: 150_000,
    subindustries: [
      S(
        'Local Government',
        [
          ['9111', 'Executive Offices', '921110', 'Executive Offices'],
          ['9199', 'General Government, NEC', '921190', 'Other General Government Support'],
        ],
        [],
        { naming: 'government', weight: 3, minTier: 1 },
      ),
      S('Public Health', [['9431', 'Administration of Public Health Programs', '923120', 'Administration of Public Health Programs']], [], {
        naming: 'government',
        weight: 1,
        minTier: 1,
      }),
      S(
        'Transportation Agencies',
        [['9621', 'Regulation and Administration of Transportation Programs', '926120', 'Regulation and Administration of Transportation Programs']],
        [],
        { naming: 'government', weight: 1, minTier: 2 },
      ),
      S(
        'Public Safety',
        [
          ['9221', 'Police Protection', '922120', 'Police Protection'],
          ['9224', 'Fire Protection', '922160', 'Fire Protection'],
        ],
        [],
        { naming: 'government', weight: 1, minTier: 1 },
      ),
    ],
  },
  {
    name: 'Real Estate',
    weight: 4,
    revenuePerEmployee: 480_000,
    subindustries: [
      S(
        'Commercial Real Estate',
        [['6512', 'Operators of Nonresidential Buildings', '531120', 'Lessors of Nonresidential Buildings (except Miniwarehouses)']],
        ['Properties', 'Realty', 'Real Estate', 'Commercial', 'Estates'],
        { weight: 1.5, localWords: { de: ['Immobilien'], fr: ['Immobilier'], es: ['Inmobiliaria'], pt: ['Imóveis'] } },
      ),
      S(
        'Property Management',
        [['6531', 'Real Estate Agents and Managers', '531311', 'Residential Property Managers']],
        ['Property Management', 'Residential', 'Living', 'Homes'],
        { weight: 1 },
      ),
      S(
        'Real Estate Brokerage',
        [['6531', 'Real Estate Agents and Managers', '531210', 'Offices of Real Estate Agents and Brokers']],
        ['Realty', 'Realtors', 'Brokerage', 'Real Estate'],
        { weight: 1 },
      ),
    ],
  },
  {
    name: 'Hospitality',
    weight: 3,
    revenuePerEmployee: 85_000,
    subindustries: [
      S(
        'Hotels & Resorts',
        [['7011', 'Hotels and Motels', '721110', 'Hotels (except Casino Hotels) and Motels']],
        ['Hotels', 'Resorts', 'Hospitality', 'Inns', 'Suites'],
        { weight: 1.5, minTier: 1 },
      ),
      S('Restaurants', [['5812', 'Eating Places', '722511', 'Full-Service Restaurants']], ['Restaurants', 'Kitchen', 'Hospitality Group', 'Dining', 'Grill'], {
        weight: 1.5,
      }),
      S('Travel Services', [['4724', 'Travel Agencies', '561510', 'Travel Agencies']], ['Travel', 'Journeys', 'Tours', 'Trips'], { weight: 0.8 }),
    ],
  },
  {
    name: 'Construction',
    weight: 4,
    revenuePerEmployee: 280_000,
    subindustries: [
      S(
        'Commercial Construction',
        [
          [
            '1542',
            'General Contractors-Nonresidential Buildings, Other than Industrial Buildings and Warehouses',
            '236220',
            'Commercial and Institutional Building Construction',
          ],
        ],
        ['Construction', 'Builders', 'Contracting', 'Building Group'],
        { weight: 1.5, localWords: { de: ['Bau', 'Bauunternehmung'], fr: ['Construction', 'BTP'], es: ['Construcciones'], pt: ['Construtora'] } },
      ),
      S(
        'Residential Construction',
        [['1521', 'General Contractors-Single-Family Houses', '236115', 'New Single-Family Housing Construction (except For-Sale Builders)']],
        ['Homes', 'Homebuilders', 'Construction', 'Builders'],
        { weight: 1 },
      ),
      S(
        'Electrical Contractors',
        [['1731', 'Electrical Work', '238210', 'Electrical Contractors and Other Wiring Installation Contractors']],
        ['Electric', 'Electrical', 'Electrical Contractors'],
        { weight: 1 },
      ),
      S(
        'Civil Engineering',
        [['1611', 'Highway and Street Construction, Except Elevated Highways', '237310', 'Highway, Street, and Bridge Construction']],
        ['Civil', 'Infrastructure', 'Paving', 'Earthworks'],
        { weight: 0.8 },
      ),
    ],
  },
  {
    name: 'Non-Profit',
    weight: 2,
    revenuePerEmployee: 95_000,
    subindustries: [
      S('Charitable Organizations', [['8399', 'Social Services, NEC', '813219', 'Other Grantmaking and Giving Services']], [], {
        naming: 'nonprofit',
        weight: 1.5,
      }),
      S('Professional Associations', [['8621', 'Professional Membership Organizations', '813920', 'Professional Organizations']], [], {
        naming: 'nonprofit',
        weight: 1,
      }),
      S('Foundations', [['6732', 'Educational, Religious, and Charitable Trusts', '813211', 'Grantmaking Foundations']], [], {
        naming: 'nonprofit',
        weight: 1,
      }),
    ],
  },
];

export const INDUSTRY_BY_NAME: ReadonlyMap<string, Industry> = new Map(INDUSTRIES.map((i) => [i.name, i]));
