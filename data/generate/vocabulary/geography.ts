/**
 * Countries, regions, states, cities, postcodes, phone formats and street addresses for the generator.
 *
 * Patterns (postcodes, phone numbers) are filled character by character by `fillPattern`:
 *   `#` a digit 0–9, `%` a digit 2–9 (phone exchanges never start with 0/1), `@` a postcode letter,
 *   `^` an upper-case letter or digit (Irish Eircode); anything else is literal.
 * Each city carries its real postcode prefixes and area code, so `San Francisco` gets `941xx` and
 * `+1 415-…`, `München` gets `80xxx` and `+49 89 …`.
 */
import type { Rng } from '../random.ts';
import type { Culture } from './people-names.ts';

export const REGIONS = ['North America', 'EMEA', 'APAC', 'LATAM'] as const;
export type Region = (typeof REGIONS)[number];

export interface City {
  name: string;
  /** Postcode patterns, e.g. `941##`. */
  zips: string[];
  /** Main-line phone pattern, e.g. `+1 415-%##-####`. */
  phone: string;
  weight?: number;
  /** Streets of this city (Market Street in San Francisco, Königsallee in Düsseldorf), mixed with the country's generic ones. */
  streets?: string[];
}

export interface State {
  name: string;
  code: string;
  weight: number;
  cities: City[];
}

export type Language = 'en' | 'de' | 'fr' | 'es' | 'pt' | 'it' | 'nl' | 'sv' | 'ja';

export interface Country {
  iso: string;
  name: string;
  region: Region;
  weight: number;
  /** Country-code top-level domain (with the usual commercial second level: `co.uk`, `com.au`). */
  tld: string;
  /** TLD of universities (`edu`, `ac.uk` …) and of government bodies. */
  eduTld: string;
  govTld: string;
  language: Language;
  /** Legal-form suffixes: for small/medium companies and for large ones. */
  legalSmall: string[];
  legalLarge: string[];
  /** Share of company names that carry a legal suffix. */
  legalShare: number;
  mobiles: string[];
  /** Street names found in any city of the country (Main Street, Hauptstraße); may be empty when every city has its own. */
  streets: string[];
  address: (rng: Rng, street: string) => string;
  cultures: [Culture, number][];
  states: State[];
}

const GB_LETTERS = 'ABDEFGHJLNPQRSTUWXYZ';
const ALNUM = 'ACDEFHKNPRTVWXY0123456789';

/** Fills a postcode/phone pattern (see the module comment). */
export function fillPattern(rng: Rng, pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '#') out += String(rng.uint32() % 10);
    else if (ch === '%') out += String(2 + (rng.uint32() % 8));
    else if (ch === '@') out += GB_LETTERS[rng.uint32() % GB_LETTERS.length];
    else if (ch === '^') out += ALNUM[rng.uint32() % ALNUM.length];
    else out += ch;
  }
  return out;
}

const ordinal = (n: number) => `${n}${n % 10 === 1 && n !== 11 ? 'st' : n % 10 === 2 && n !== 12 ? 'nd' : n % 10 === 3 && n !== 13 ? 'rd' : 'th'}`;

/** `1200 Market Street, Suite 400` style (US, CA). */
function northAmericanAddress(rng: Rng, street: string): string {
  const base = `${rng.chance(0.7) ? rng.int(100, 2999) : rng.int(1, 99)} ${street}`;
  const r = rng.float();
  if (r < 0.35) return `${base}, Suite ${rng.int(1, 30) * 100 + rng.int(0, 20)}`;
  if (r < 0.45) return `${base}, Floor ${rng.int(2, 40)}`;
  return base;
}

const C = (name: string, zips: string[], phone: string, weight = 1, streets?: string[]): City => ({
  name,
  zips,
  phone,
  weight,
  ...(streets ? { streets } : {}),
});

export const COUNTRIES: Country[] = [
  {
    iso: 'US',
    name: 'United States',
    region: 'North America',
    weight: 48,
    tld: 'com',
    eduTld: 'edu',
    govTld: 'gov',
    language: 'en',
    legalSmall: ['Inc.', 'LLC', 'Inc.', 'Corp.', 'Co.'],
    legalLarge: ['Inc.', 'Corporation', 'Inc.', 'Holdings, Inc.'],
    legalShare: 0.35,
    mobiles: [],
    streets: [
      'Main Street',
      'Broadway',
      'Oak Street',
      'Maple Avenue',
      'Elm Street',
      'Washington Street',
      'Pine Street',
      'Lake Street',
      'Commerce Drive',
      'Technology Drive',
      'Innovation Way',
      'Corporate Drive',
      'Industrial Parkway',
      'Enterprise Boulevard',
      'University Avenue',
      'Research Boulevard',
      'Summit Avenue',
      'State Street',
      'Franklin Street',
      'Jefferson Avenue',
      'Lincoln Avenue',
      'Grand Avenue',
      'Center Street',
      'Cedar Lane',
      'Riverside Drive',
      '2nd Avenue',
      '3rd Street',
      'Park Place',
      'Executive Drive',
      'Market Street',
    ],
    address: northAmericanAddress,
    cultures: [
      ['anglo', 50],
      ['hispanic', 14],
      ['indian', 8],
      ['chinese', 6],
      ['african', 3],
      ['vietnamese', 2],
      ['korean', 2],
      ['arabic', 2],
      ['slavic', 3],
      ['italian', 3],
      ['irish', 4],
      ['german', 2],
      ['japanese', 1],
    ],
    states: [
      {
        name: 'California',
        code: 'CA',
        weight: 14,
        cities: [
          C('San Francisco', ['941##'], '+1 415-%##-####', 4, [
            'Market Street',
            'Mission Street',
            'Howard Street',
            'Folsom Street',
            'Montgomery Street',
            'Townsend Street',
          ]),
          C('Los Angeles', ['900##'], '+1 213-%##-####', 3, ['Wilshire Boulevard', 'Sunset Boulevard', 'Figueroa Street', 'Grand Avenue']),
          C('San Jose', ['951##'], '+1 408-%##-####', 2),
          C('Santa Clara', ['950##'], '+1 408-%##-####'),
          C('San Diego', ['921##'], '+1 619-%##-####', 2),
          C('Palo Alto', ['943##'], '+1 650-%##-####'),
          C('Irvine', ['926##'], '+1 949-%##-####'),
          C('Sacramento', ['958##'], '+1 916-%##-####'),
        ],
      },
      {
        name: 'New York',
        code: 'NY',
        weight: 9,
        cities: [
          C('New York', ['100##', '101##'], '+1 212-%##-####', 6, [
            'Park Avenue',
            'Madison Avenue',
            'Lexington Avenue',
            'Broadway',
            'Hudson Street',
            '5th Avenue',
            'Avenue of the Americas',
          ]),
          C('Brooklyn', ['112##'], '+1 718-%##-####'),
          C('Buffalo', ['142##'], '+1 716-%##-####'),
          C('Rochester', ['146##'], '+1 585-%##-####'),
        ],
      },
      {
        name: 'Texas',
        code: 'TX',
        weight: 10,
        cities: [
          C('Austin', ['787##'], '+1 512-%##-####', 3, ['Congress Avenue', 'Lamar Boulevard', 'Research Boulevard', 'Cesar Chavez Street']),
          C('Dallas', ['752##'], '+1 214-%##-####', 3, ['Ross Avenue', 'Main Street', 'McKinney Avenue']),
          C('Houston', ['770##'], '+1 713-%##-####', 3, ['Louisiana Street', 'Travis Street', 'Smith Street']),
          C('San Antonio', ['782##'], '+1 210-%##-####'),
          C('Plano', ['750##'], '+1 972-%##-####'),
        ],
      },
      {
        name: 'Massachusetts',
        code: 'MA',
        weight: 4,
        cities: [
          C('Boston', ['021##'], '+1 617-%##-####', 3, ['Boylston Street', 'Summer Street', 'Congress Street', 'Atlantic Avenue']),
          C('Cambridge', ['021##'], '+1 617-%##-####', 1, ['Massachusetts Avenue', 'Main Street', 'Binney Street']),
          C('Waltham', ['024##'], '+1 781-%##-####'),
        ],
      },
      {
        name: 'Washington',
        code: 'WA',
        weight: 4,
        cities: [
          C('Seattle', ['981##'], '+1 206-%##-####', 3, ['Pike Street', '2nd Avenue', 'Westlake Avenue North', 'Elliott Avenue West']),
          C('Bellevue', ['980##'], '+1 425-%##-####'),
          C('Redmond', ['980##'], '+1 425-%##-####'),
        ],
      },
      {
        name: 'Illinois',
        code: 'IL',
        weight: 5,
        cities: [
          C('Chicago', ['606##'], '+1 312-%##-####', 5, ['Wacker Drive', 'Michigan Avenue', 'LaSalle Street', 'Randolph Street']),
          C('Naperville', ['605##'], '+1 630-%##-####'),
        ],
      },
      {
        name: 'Georgia',
        code: 'GA',
        weight: 3,
        cities: [
          C('Atlanta', ['303##'], '+1 404-%##-####', 3, ['Peachtree Street NE', 'Spring Street NW', 'West Peachtree Street NW']),
          C('Alpharetta', ['300##'], '+1 770-%##-####'),
        ],
      },
      {
        name: 'Colorado',
        code: 'CO',
        weight: 3,
        cities: [C('Denver', ['802##'], '+1 303-%##-####', 3, ['17th Street', 'Larimer Street', 'Blake Street']), C('Boulder', ['803##'], '+1 303-%##-####')],
      },
      {
        name: 'Florida',
        code: 'FL',
        weight: 6,
        cities: [
          C('Miami', ['331##'], '+1 305-%##-####', 2, ['Brickell Avenue', 'Biscayne Boulevard']),
          C('Tampa', ['336##'], '+1 813-%##-####'),
          C('Orlando', ['328##'], '+1 407-%##-####'),
          C('Jacksonville', ['322##'], '+1 904-%##-####'),
        ],
      },
      {
        name: 'North Carolina',
        code: 'NC',
        weight: 3,
        cities: [C('Charlotte', ['282##'], '+1 704-%##-####', 2), C('Raleigh', ['276##'], '+1 919-%##-####'), C('Durham', ['277##'], '+1 919-%##-####')],
      },
      {
        name: 'Virginia',
        code: 'VA',
        weight: 3,
        cities: [
          C('Arlington', ['222##'], '+1 703-%##-####'),
          C('Reston', ['201##'], '+1 703-%##-####'),
          C('Richmond', ['232##'], '+1 804-%##-####'),
          C('Ashburn', ['201##'], '+1 571-%##-####'),
        ],
      },
      {
        name: 'Pennsylvania',
        code: 'PA',
        weight: 4,
        cities: [
          C('Philadelphia', ['191##'], '+1 215-%##-####', 2, ['Market Street', 'Chestnut Street', 'Arch Street']),
          C('Pittsburgh', ['152##'], '+1 412-%##-####'),
        ],
      },
      {
        name: 'Ohio',
        code: 'OH',
        weight: 3,
        cities: [C('Columbus', ['432##'], '+1 614-%##-####'), C('Cleveland', ['441##'], '+1 216-%##-####'), C('Cincinnati', ['452##'], '+1 513-%##-####')],
      },
      { name: 'Michigan', code: 'MI', weight: 2, cities: [C('Detroit', ['482##'], '+1 313-%##-####'), C('Ann Arbor', ['481##'], '+1 734-%##-####')] },
      { name: 'Minnesota', code: 'MN', weight: 2, cities: [C('Minneapolis', ['554##'], '+1 612-%##-####', 2), C('Saint Paul', ['551##'], '+1 651-%##-####')] },
      { name: 'Arizona', code: 'AZ', weight: 2, cities: [C('Phoenix', ['850##'], '+1 602-%##-####', 2), C('Scottsdale', ['852##'], '+1 480-%##-####')] },
      { name: 'Utah', code: 'UT', weight: 1.5, cities: [C('Salt Lake City', ['841##'], '+1 801-%##-####'), C('Lehi', ['840##'], '+1 801-%##-####')] },
      { name: 'Oregon', code: 'OR', weight: 1.5, cities: [C('Portland', ['972##'], '+1 503-%##-####', 2), C('Hillsboro', ['971##'], '+1 503-%##-####')] },
      { name: 'Tennessee', code: 'TN', weight: 1.5, cities: [C('Nashville', ['372##'], '+1 615-%##-####')] },
      { name: 'Missouri', code: 'MO', weight: 1.5, cities: [C('St. Louis', ['631##'], '+1 314-%##-####'), C('Kansas City', ['641##'], '+1 816-%##-####')] },
      {
        name: 'New Jersey',
        code: 'NJ',
        weight: 3,
        cities: [C('Newark', ['071##'], '+1 973-%##-####'), C('Jersey City', ['073##'], '+1 201-%##-####'), C('Princeton', ['085##'], '+1 609-%##-####')],
      },
      { name: 'Wisconsin', code: 'WI', weight: 1, cities: [C('Milwaukee', ['532##'], '+1 414-%##-####'), C('Madison', ['537##'], '+1 608-%##-####')] },
      {
        name: 'District of Columbia',
        code: 'DC',
        weight: 1,
        cities: [C('Washington', ['200##'], '+1 202-%##-####', 1, ['Pennsylvania Avenue NW', 'K Street NW', 'Connecticut Avenue NW'])],
      },
      { name: 'Maryland', code: 'MD', weight: 2, cities: [C('Baltimore', ['212##'], '+1 410-%##-####'), C('Bethesda', ['208##'], '+1 301-%##-####')] },
      { name: 'Connecticut', code: 'CT', weight: 1, cities: [C('Stamford', ['069##'], '+1 203-%##-####'), C('Hartford', ['061##'], '+1 860-%##-####')] },
      { name: 'Indiana', code: 'IN', weight: 1, cities: [C('Indianapolis', ['462##'], '+1 317-%##-####', 1, ['Meridian Street', 'Washington Street'])] },
      { name: 'Nevada', code: 'NV', weight: 1, cities: [C('Las Vegas', ['891##'], '+1 702-%##-####'), C('Reno', ['895##'], '+1 775-%##-####')] },
    ],
  },
  {
    iso: 'CA',
    name: 'Canada',
    region: 'North America',
    weight: 5,
    tld: 'ca',
    eduTld: 'ca',
    govTld: 'gc.ca',
    language: 'en',
    legalSmall: ['Inc.', 'Ltd.', 'Corp.'],
    legalLarge: ['Inc.', 'Limited', 'Corporation'],
    legalShare: 0.4,
    mobiles: [],
    streets: ['King Street', 'Queen Street', 'Main Street', 'Front Street', 'Wellington Street', 'Commerce Court'],
    address: northAmericanAddress,
    cultures: [
      ['anglo', 48],
      ['french', 16],
      ['chinese', 10],
      ['indian', 10],
      ['arabic', 3],
      ['italian', 3],
      ['slavic', 3],
      ['irish', 5],
      ['korean', 2],
    ],
    states: [
      {
        name: 'Ontario',
        code: 'ON',
        weight: 10,
        cities: [
          C('Toronto', ['M5V #@#', 'M5H #@#', 'M4W #@#', 'M5J #@#'], '+1 416-%##-####', 5, [
            'King Street West',
            'Bay Street',
            'Yonge Street',
            'Queen Street West',
            'Front Street West',
            'Spadina Avenue',
            'University Avenue',
          ]),
          C('Ottawa', ['K1P #@#', 'K2P #@#'], '+1 613-%##-####', 2, ['Sparks Street', 'Elgin Street', 'Bank Street', 'Laurier Avenue West']),
          C('Waterloo', ['N2L #@#', 'N2J #@#'], '+1 519-%##-####', 1, ['King Street North', 'Columbia Street West', 'Erb Street West']),
          C('Mississauga', ['L5B #@#', 'L4W #@#'], '+1 905-%##-####', 1, ['Hurontario Street', 'Burnhamthorpe Road West', 'City Centre Drive']),
        ],
      },
      {
        name: 'British Columbia',
        code: 'BC',
        weight: 4,
        cities: [
          C('Vancouver', ['V6B #@#', 'V6C #@#', 'V6E #@#'], '+1 604-%##-####', 3, [
            'Granville Street',
            'West Hastings Street',
            'Burrard Street',
            'West Georgia Street',
          ]),
          C('Victoria', ['V8W #@#'], '+1 250-%##-####', 1, ['Douglas Street', 'Government Street', 'Fort Street']),
        ],
      },
      {
        name: 'Quebec',
        code: 'QC',
        weight: 5,
        cities: [
          C('Montreal', ['H3B #@#', 'H2X #@#', 'H3A #@#'], '+1 514-%##-####', 3, [
            'Rue Sainte-Catherine Ouest',
            'Boulevard René-Lévesque Ouest',
            'Rue Saint-Jacques',
            'Avenue McGill College',
          ]),
          C('Quebec City', ['G1R #@#', 'G1K #@#'], '+1 418-%##-####', 1, ['Grande Allée Est', 'Boulevard Laurier', 'Rue Saint-Jean']),
        ],
      },
      {
        name: 'Alberta',
        code: 'AB',
        weight: 3,
        cities: [
          C('Calgary', ['T2P #@#', 'T2R #@#'], '+1 403-%##-####', 2, ['8th Avenue SW', '4th Avenue SW', 'Centre Street South']),
          C('Edmonton', ['T5J #@#'], '+1 780-%##-####', 1, ['Jasper Avenue', '101 Street NW', '104 Avenue NW']),
        ],
      },
    ],
  },
  {
    iso: 'MX',
    name: 'Mexico',
    region: 'LATAM',
    weight: 1.5,
    tld: 'com.mx',
    eduTld: 'edu.mx',
    govTld: 'gob.mx',
    language: 'es',
    legalSmall: ['S.A. de C.V.', 'S. de R.L. de C.V.'],
    legalLarge: ['S.A.B. de C.V.', 'S.A. de C.V.'],
    legalShare: 0.6,
    mobiles: [],
    streets: [],
    address: (rng, street) => `${street} ${rng.int(10, 3500)}${rng.chance(0.4) ? `, Piso ${rng.int(2, 30)}` : ''}`,
    cultures: [
      ['hispanic', 92],
      ['anglo', 3],
      ['german', 2],
      ['chinese', 1],
      ['arabic', 2],
    ],
    states: [
      {
        name: 'Ciudad de México',
        code: 'CMX',
        weight: 6,
        cities: [
          C('Ciudad de México', ['06###', '11###', '03###'], '+52 55 #### ####', 1, [
            'Paseo de la Reforma',
            'Avenida Insurgentes Sur',
            'Avenida Presidente Masaryk',
            'Calle Francisco I. Madero',
            'Avenida Ejército Nacional',
          ]),
        ],
      },
      {
        name: 'Jalisco',
        code: 'JAL',
        weight: 2,
        cities: [C('Guadalajara', ['44###'], '+52 33 #### ####', 1, ['Avenida Vallarta', 'Avenida Chapultepec', 'Avenida Américas'])],
      },
      {
        name: 'Nuevo León',
        code: 'NLE',
        weight: 2,
        cities: [C('Monterrey', ['64###'], '+52 81 #### ####', 1, ['Avenida Constitución', 'Avenida Revolución', 'Calzada del Valle'])],
      },
    ],
  },
  {
    iso: 'BR',
    name: 'Brazil',
    region: 'LATAM',
    weight: 3,
    tld: 'com.br',
    eduTld: 'edu.br',
    govTld: 'gov.br',
    language: 'pt',
    legalSmall: ['Ltda.', 'Ltda.', 'S.A.'],
    legalLarge: ['S.A.'],
    legalShare: 0.6,
    mobiles: [],
    streets: [],
    address: (rng, street) => `${street}, ${rng.int(10, 4000)}${rng.chance(0.4) ? ` - Conjunto ${rng.int(1, 25)}${rng.int(0, 9)}` : ''}`,
    cultures: [
      ['portuguese', 80],
      ['italian', 8],
      ['german', 4],
      ['japanese', 4],
      ['arabic', 4],
    ],
    states: [
      {
        name: 'São Paulo',
        code: 'SP',
        weight: 8,
        cities: [
          C('São Paulo', ['01###-###', '04###-###', '05###-###'], '+55 11 %###-####', 5, [
            'Avenida Paulista',
            'Rua Augusta',
            'Avenida Brigadeiro Faria Lima',
            'Rua Oscar Freire',
            'Rua da Consolação',
            'Avenida Engenheiro Luís Carlos Berrini',
          ]),
          C('Campinas', ['13###-###'], '+55 19 %###-####', 1, ['Avenida José de Souza Campos', 'Rua Barão de Jaguara']),
        ],
      },
      {
        name: 'Rio de Janeiro',
        code: 'RJ',
        weight: 4,
        cities: [
          C('Rio de Janeiro', ['20###-###', '22###-###'], '+55 21 %###-####', 1, [
            'Avenida Rio Branco',
            'Avenida Atlântica',
            'Rua Visconde de Pirajá',
            'Avenida Presidente Vargas',
          ]),
        ],
      },
      {
        name: 'Minas Gerais',
        code: 'MG',
        weight: 2,
        cities: [C('Belo Horizonte', ['30###-###'], '+55 31 %###-####', 1, ['Avenida Afonso Pena', 'Rua da Bahia'])],
      },
      {
        name: 'Paraná',
        code: 'PR',
        weight: 1.5,
        cities: [C('Curitiba', ['80###-###'], '+55 41 %###-####', 1, ['Rua XV de Novembro', 'Avenida Cândido de Abreu'])],
      },
      {
        name: 'Rio Grande do Sul',
        code: 'RS',
        weight: 1.5,
        cities: [C('Porto Alegre', ['90###-###'], '+55 51 %###-####', 1, ['Rua dos Andradas', 'Avenida Ipiranga'])],
      },
    ],
  },
  {
    iso: 'GB',
    name: 'United Kingdom',
    region: 'EMEA',
    weight: 8,
    tld: 'co.uk',
    eduTld: 'ac.uk',
    govTld: 'gov.uk',
    language: 'en',
    legalSmall: ['Ltd', 'Ltd', 'Limited'],
    legalLarge: ['plc', 'Group plc', 'Ltd'],
    legalShare: 0.5,
    mobiles: ['+44 7### ######'],
    streets: ['High Street', 'King Street', 'Station Road', 'Church Road', 'Queen Street', 'Market Street', 'Victoria Road', 'Park Lane'],
    address: (rng, street) => {
      const base = `${rng.int(1, 220)} ${street}`;
      const r = rng.float();
      if (r < 0.25) return `${ordinal(rng.int(1, 12))} Floor, ${base}`;
      if (r < 0.35) return `Unit ${rng.int(1, 40)}, ${base}`;
      return base;
    },
    cultures: [
      ['anglo', 62],
      ['indian', 10],
      ['irish', 6],
      ['slavic', 5],
      ['african', 4],
      ['chinese', 3],
      ['arabic', 4],
      ['french', 2],
      ['italian', 2],
      ['hispanic', 2],
    ],
    states: [
      {
        name: 'England',
        code: 'ENG',
        weight: 85,
        cities: [
          C('London', ['EC1A #@@', 'EC2A #@@', 'EC2M #@@', 'EC4M #@@', 'W1D #@@', 'WC2H #@@', 'SE1 #@@', 'E1 #@@', 'N1 #@@'], '+44 20 %### ####', 10, [
            'Old Street',
            'Bishopsgate',
            'Finsbury Square',
            'Moorgate',
            'Aldgate',
            'Shoreditch High Street',
            'Great Portland Street',
            'Cheapside',
            'Victoria Street',
            'Kingsway',
          ]),
          C('Manchester', ['M1 #@@', 'M2 #@@', 'M3 #@@'], '+44 161 %## ####', 2, ['Deansgate', 'Oxford Road', 'Spring Gardens', 'Piccadilly']),
          C('Birmingham', ['B1 #@@', 'B2 #@@', 'B3 #@@'], '+44 121 %## ####', 2, ['Colmore Row', 'Corporation Street', 'Broad Street']),
          C('Leeds', ['LS1 #@@', 'LS2 #@@'], '+44 113 %## ####', 1, ['Park Row', 'Wellington Place', 'Boar Lane']),
          C('Bristol', ['BS1 #@@', 'BS2 #@@'], '+44 117 %## ####', 1, ['Temple Quay', 'Queen Square', 'Victoria Street']),
          C('Cambridge', ['CB1 #@@', 'CB2 #@@'], '+44 1223 %#####', 1, ['Hills Road', 'Station Road', 'Regent Street']),
          C('Reading', ['RG1 #@@', 'RG2 #@@'], '+44 118 %## ####', 1, ['Kings Road', 'Forbury Road']),
          C('Oxford', ['OX1 #@@', 'OX2 #@@', 'OX4 #@@'], '+44 1865 %#####', 1, ['George Street', 'St Aldates', 'Banbury Road']),
        ],
      },
      {
        name: 'Scotland',
        code: 'SCT',
        weight: 9,
        cities: [
          C('Edinburgh', ['EH1 #@@', 'EH2 #@@', 'EH3 #@@'], '+44 131 %## ####', 1, ['Princes Street', 'George Street', 'Lothian Road']),
          C('Glasgow', ['G1 #@@', 'G2 #@@'], '+44 141 %## ####', 1, ['St Vincent Street', 'Buchanan Street', 'Bothwell Street']),
        ],
      },
      {
        name: 'Wales',
        code: 'WLS',
        weight: 4,
        cities: [C('Cardiff', ['CF10 #@@', 'CF11 #@@'], '+44 29 %### ####', 1, ['Queen Street', 'Callaghan Square', 'Churchill Way'])],
      },
      {
        name: 'Northern Ireland',
        code: 'NIR',
        weight: 2,
        cities: [C('Belfast', ['BT1 #@@', 'BT2 #@@'], '+44 28 9### ####', 1, ['Donegall Square', 'Victoria Street', "Queen's Road"])],
      },
    ],
  },
  {
    iso: 'IE',
    name: 'Ireland',
    region: 'EMEA',
    weight: 1.5,
    tld: 'ie',
    eduTld: 'ie',
    govTld: 'gov.ie',
    language: 'en',
    legalSmall: ['Ltd', 'Limited', 'DAC'],
    legalLarge: ['plc', 'Limited'],
    legalShare: 0.45,
    mobiles: ['+353 8% ### ####'],
    streets: [],
    address: (rng, street) => `${rng.int(1, 120)} ${street}`,
    cultures: [
      ['irish', 72],
      ['anglo', 10],
      ['slavic', 9],
      ['indian', 4],
      ['hispanic', 3],
      ['portuguese', 2],
    ],
    states: [
      {
        name: 'Dublin',
        code: 'D',
        weight: 8,
        cities: [
          C('Dublin', ['D02 ^^^^', 'D04 ^^^^', 'D01 ^^^^'], '+353 1 %## ####', 1, [
            'Grand Canal Street',
            'Baggot Street',
            'Harcourt Street',
            "Sir John Rogerson's Quay",
            "St Stephen's Green",
            'Leeson Street',
            'Fitzwilliam Square',
            'Dawson Street',
            'Barrow Street',
          ]),
        ],
      },
      {
        name: 'Cork',
        code: 'CO',
        weight: 2,
        cities: [C('Cork', ['T12 ^^^^', 'T23 ^^^^'], '+353 21 %## ####', 1, ['Patrick Street', 'South Mall', "Lapp's Quay"])],
      },
      { name: 'Galway', code: 'G', weight: 1, cities: [C('Galway', ['H91 ^^^^'], '+353 91 %## ###', 1, ['Eyre Square', 'Dock Road', 'Shop Street'])] },
    ],
  },
  {
    iso: 'DE',
    name: 'Germany',
    region: 'EMEA',
    weight: 6,
    tld: 'de',
    eduTld: 'de',
    govTld: 'de',
    language: 'de',
    legalSmall: ['GmbH', 'GmbH', 'GmbH', 'GmbH & Co. KG', 'UG'],
    legalLarge: ['AG', 'SE', 'GmbH'],
    legalShare: 0.85,
    mobiles: ['+49 151 ########', '+49 160 #######', '+49 170 #######', '+49 172 #######', '+49 176 ########'],
    streets: [
      'Hauptstraße',
      'Bahnhofstraße',
      'Schillerstraße',
      'Goethestraße',
      'Industriestraße',
      'Lindenstraße',
      'Dieselstraße',
      'Carl-Benz-Straße',
      'Gutenbergstraße',
      'Marktplatz',
    ],
    address: (rng, street) => `${street} ${rng.int(1, 180)}${rng.chance(0.12) ? 'a' : ''}`,
    cultures: [
      ['german', 72],
      ['turkish', 10],
      ['slavic', 8],
      ['italian', 3],
      ['arabic', 3],
      ['anglo', 2],
      ['greek', 2],
    ],
    states: [
      {
        name: 'Berlin',
        code: 'BE',
        weight: 6,
        cities: [
          C('Berlin', ['101##', '104##', '107##', '109##', '120##'], '+49 30 %#######', 1, [
            'Friedrichstraße',
            'Torstraße',
            'Rosenthaler Straße',
            'Am Kupfergraben',
            'Kurfürstendamm',
            'Potsdamer Platz',
          ]),
        ],
      },
      {
        name: 'Bayern',
        code: 'BY',
        weight: 7,
        cities: [
          C('München', ['803##', '806##', '809##', '813##'], '+49 89 %#######', 3, ['Leopoldstraße', 'Theresienhöhe', 'Maximilianstraße', 'Arnulfstraße']),
          C('Nürnberg', ['904##'], '+49 911 %######'),
        ],
      },
      {
        name: 'Hamburg',
        code: 'HH',
        weight: 4,
        cities: [C('Hamburg', ['204##', '200##', '221##'], '+49 40 %#######', 1, ['Am Sandtorkai', 'Jungfernstieg', 'Große Elbstraße'])],
      },
      {
        name: 'Hessen',
        code: 'HE',
        weight: 4,
        cities: [
          C('Frankfurt am Main', ['603##', '604##', '605##'], '+49 69 %#######', 3, [
            'Mainzer Landstraße',
            'Neue Mainzer Straße',
            'Kaiserstraße',
            'Taunusanlage',
          ]),
          C('Wiesbaden', ['651##'], '+49 611 %######'),
          C('Darmstadt', ['642##'], '+49 6151 %#####'),
        ],
      },
      {
        name: 'Nordrhein-Westfalen',
        code: 'NW',
        weight: 8,
        cities: [
          C('Köln', ['506##', '507##'], '+49 221 %######', 2, ['Hohenzollernring', 'Im Mediapark']),
          C('Düsseldorf', ['402##', '404##'], '+49 211 %######', 2, ['Königsallee', 'Kaistraße']),
          C('Dortmund', ['441##'], '+49 231 %######'),
          C('Essen', ['451##'], '+49 201 %######'),
        ],
      },
      {
        name: 'Baden-Württemberg',
        code: 'BW',
        weight: 6,
        cities: [
          C('Stuttgart', ['701##', '703##'], '+49 711 %######', 3, ['Königstraße', 'Heilbronner Straße']),
          C('Karlsruhe', ['761##'], '+49 721 %######'),
          C('Walldorf', ['691##'], '+49 6227 %#####', 1, ['Dietmar-Hopp-Allee', 'Altrottstraße']),
        ],
      },
      { name: 'Sachsen', code: 'SN', weight: 2, cities: [C('Leipzig', ['041##'], '+49 341 %######'), C('Dresden', ['010##'], '+49 351 %######')] },
      { name: 'Niedersachsen', code: 'NI', weight: 2, cities: [C('Hannover', ['301##'], '+49 511 %######')] },
    ],
  },
  {
    iso: 'FR',
    name: 'France',
    region: 'EMEA',
    weight: 4,
    tld: 'fr',
    eduTld: 'fr',
    govTld: 'gouv.fr',
    language: 'fr',
    legalSmall: ['SAS', 'SARL', 'SAS'],
    legalLarge: ['SA', 'SE', 'SAS'],
    legalShare: 0.55,
    mobiles: ['+33 6 ## ## ## ##', '+33 7 ## ## ## ##'],
    streets: ['rue de la République', 'avenue Jean Jaurès', 'rue Victor Hugo', 'boulevard Gambetta', 'rue Pasteur', 'avenue de la Gare'],
    address: (rng, street) => `${rng.int(1, 150)}${rng.chance(0.08) ? ' bis' : ''} ${street}`,
    cultures: [
      ['french', 74],
      ['arabic', 12],
      ['hispanic', 2],
      ['portuguese', 3],
      ['african', 4],
      ['italian', 3],
      ['vietnamese', 2],
    ],
    states: [
      {
        name: 'Île-de-France',
        code: 'IDF',
        weight: 10,
        cities: [
          C('Paris', ['7500%', '7501#'], '+33 1 ## ## ## ##', 6, [
            'rue de Rivoli',
            'avenue des Champs-Élysées',
            'boulevard Haussmann',
            'rue du Faubourg Saint-Honoré',
            'rue Saint-Lazare',
            'rue de la Paix',
            'boulevard de Sébastopol',
            'rue La Boétie',
            'avenue Kléber',
            'quai de la Rapée',
            'avenue de France',
          ]),
          C('Boulogne-Billancourt', ['92100'], '+33 1 ## ## ## ##', 1, ['rue du Vieux Pont de Sèvres', 'avenue du Général Leclerc']),
          C('Courbevoie', ['92400'], '+33 1 ## ## ## ##', 1, ['place de la Défense', 'esplanade du Général de Gaulle']),
        ],
      },
      {
        name: 'Auvergne-Rhône-Alpes',
        code: 'ARA',
        weight: 3,
        cities: [
          C('Lyon', ['6900%'], '+33 4 ## ## ## ##', 2, ['cours Lafayette', 'rue de la République', 'quai Perrache']),
          C('Grenoble', ['38000', '38100'], '+33 4 ## ## ## ##'),
        ],
      },
      {
        name: "Provence-Alpes-Côte d'Azur",
        code: 'PAC',
        weight: 2,
        cities: [C('Marseille', ['1300%', '1301#'], '+33 4 ## ## ## ##', 1, ['La Canebière', 'quai du Port']), C('Nice', ['0600%'], '+33 4 ## ## ## ##')],
      },
      {
        name: 'Occitanie',
        code: 'OCC',
        weight: 2,
        cities: [
          C('Toulouse', ['3100%', '3120#'], '+33 5 ## ## ## ##', 1, ['allées Jean Jaurès', "rue d'Alsace-Lorraine"]),
          C('Montpellier', ['34000'], '+33 4 ## ## ## ##'),
        ],
      },
      {
        name: 'Nouvelle-Aquitaine',
        code: 'NAQ',
        weight: 1.5,
        cities: [C('Bordeaux', ['3300%'], '+33 5 ## ## ## ##', 1, ['rue Sainte-Catherine', 'place de la Bourse', "cours de l'Intendance"])],
      },
      {
        name: 'Hauts-de-France',
        code: 'HDF',
        weight: 1.5,
        cities: [C('Lille', ['59000', '59800'], '+33 3 ## ## ## ##', 1, ['rue Nationale', 'boulevard de la Liberté'])],
      },
      { name: 'Pays de la Loire', code: 'PDL', weight: 1, cities: [C('Nantes', ['4400%'], '+33 2 ## ## ## ##')] },
    ],
  },
  {
    iso: 'NL',
    name: 'Netherlands',
    region: 'EMEA',
    weight: 3,
    tld: 'nl',
    eduTld: 'nl',
    govTld: 'nl',
    language: 'nl',
    legalSmall: ['B.V.', 'B.V.'],
    legalLarge: ['N.V.', 'B.V.'],
    legalShare: 0.6,
    mobiles: ['+31 6 ########'],
    streets: ['Stationsplein', 'Kanaalweg', 'Stationsweg', 'Marktplein', 'Hoofdstraat'],
    address: (rng, street) => `${street} ${rng.int(1, 400)}`,
    cultures: [
      ['dutch', 74],
      ['turkish', 6],
      ['arabic', 6],
      ['indian', 3],
      ['german', 4],
      ['anglo', 3],
      ['malay', 4],
    ],
    states: [
      {
        name: 'Noord-Holland',
        code: 'NH',
        weight: 6,
        cities: [
          C('Amsterdam', ['10## @@'], '+31 20 ### ####', 5, [
            'Keizersgracht',
            'Herengracht',
            'Prinsengracht',
            'Damrak',
            'Gustav Mahlerlaan',
            'Strawinskylaan',
            'Stadhouderskade',
          ]),
          C('Haarlem', ['20## @@'], '+31 23 ### ####'),
        ],
      },
      {
        name: 'Zuid-Holland',
        code: 'ZH',
        weight: 4,
        cities: [
          C('Rotterdam', ['30## @@'], '+31 10 ### ####', 2, ['Coolsingel', 'Weena', 'Wilhelminakade']),
          C('Den Haag', ['25## @@'], '+31 70 ### ####', 2, ['Lange Voorhout', 'Prinses Beatrixlaan']),
          C('Leiden', ['23## @@'], '+31 71 ### ####'),
        ],
      },
      { name: 'Utrecht', code: 'UT', weight: 2, cities: [C('Utrecht', ['35## @@'], '+31 30 ### ####', 1, ['Oudegracht', 'Catharijnesingel'])] },
      { name: 'Noord-Brabant', code: 'NB', weight: 2, cities: [C('Eindhoven', ['56## @@'], '+31 40 ### ####', 1, ['Vestdijk', 'High Tech Campus'])] },
    ],
  },
  {
    iso: 'ES',
    name: 'Spain',
    region: 'EMEA',
    weight: 2.5,
    tld: 'es',
    eduTld: 'es',
    govTld: 'gob.es',
    language: 'es',
    legalSmall: ['S.L.', 'S.L.', 'S.L.U.'],
    legalLarge: ['S.A.'],
    legalShare: 0.6,
    mobiles: ['+34 6## ### ###', '+34 7## ### ###'],
    streets: ['Calle Mayor', 'Avenida de la Constitución', 'Calle Real', 'Plaza Mayor'],
    address: (rng, street) => `${street}, ${rng.int(1, 250)}`,
    cultures: [
      ['hispanic', 84],
      ['arabic', 4],
      ['anglo', 2],
      ['french', 3],
      ['italian', 2],
      ['portuguese', 3],
      ['slavic', 2],
    ],
    states: [
      {
        name: 'Comunidad de Madrid',
        code: 'MD',
        weight: 6,
        cities: [
          C('Madrid', ['280##'], '+34 91 ### ## ##', 1, ['Calle de Alcalá', 'Paseo de la Castellana', 'Gran Vía', 'Calle de Serrano', 'Calle de Velázquez']),
        ],
      },
      {
        name: 'Cataluña',
        code: 'CT',
        weight: 5,
        cities: [C('Barcelona', ['080##'], '+34 93 ### ## ##', 1, ['Avinguda Diagonal', 'Passeig de Gràcia', 'Carrer de Balmes'])],
      },
      {
        name: 'Comunidad Valenciana',
        code: 'VC',
        weight: 2,
        cities: [C('Valencia', ['460##'], '+34 96 ### ## ##', 1, ['Calle de Colón', 'Avenida del Puerto'])],
      },
      {
        name: 'Andalucía',
        code: 'AN',
        weight: 2,
        cities: [
          C('Sevilla', ['410##'], '+34 95 ### ## ##', 1, ['Avenida de la Constitución', 'Calle Sierpes']),
          C('Málaga', ['290##'], '+34 952 ## ## ##', 1, ['Calle Larios', 'Alameda Principal']),
        ],
      },
      {
        name: 'País Vasco',
        code: 'PV',
        weight: 1.5,
        cities: [C('Bilbao', ['480##'], '+34 94 ### ## ##', 1, ['Gran Vía de Don Diego López de Haro', 'Alameda de Recalde'])],
      },
    ],
  },
  {
    iso: 'IT',
    name: 'Italy',
    region: 'EMEA',
    weight: 2,
    tld: 'it',
    eduTld: 'it',
    govTld: 'gov.it',
    language: 'it',
    legalSmall: ['S.r.l.', 'S.r.l.'],
    legalLarge: ['S.p.A.'],
    legalShare: 0.7,
    mobiles: ['+39 3## ### ####'],
    streets: ['Via Roma', 'Via Garibaldi', 'Via Mazzini', 'Via Cavour'],
    address: (rng, street) => `${street}, ${rng.int(1, 200)}`,
    cultures: [
      ['italian', 88],
      ['hispanic', 2],
      ['arabic', 3],
      ['slavic', 4],
      ['anglo', 3],
    ],
    states: [
      {
        name: 'Lombardia',
        code: '25',
        weight: 5,
        cities: [C('Milano', ['201##'], '+39 02 #### ####', 1, ['Via Montenapoleone', 'Corso Buenos Aires', 'Via Dante', 'Via Torino', 'Corso Como'])],
      },
      {
        name: 'Lazio',
        code: '62',
        weight: 3,
        cities: [C('Roma', ['001##'], '+39 06 #### ####', 1, ['Via del Corso', 'Via Nazionale', 'Piazza della Repubblica'])],
      },
      { name: 'Piemonte', code: '21', weight: 2, cities: [C('Torino', ['101##'], '+39 011 ### ####', 1, ['Via Po', 'Corso Vittorio Emanuele II'])] },
      { name: 'Emilia-Romagna', code: '45', weight: 2, cities: [C('Bologna', ['401##'], '+39 051 ### ####', 1, ["Via dell'Indipendenza", 'Via Rizzoli'])] },
      { name: 'Toscana', code: '52', weight: 1, cities: [C('Firenze', ['501##'], '+39 055 ### ####')] },
    ],
  },
  {
    iso: 'SE',
    name: 'Sweden',
    region: 'EMEA',
    weight: 2,
    tld: 'se',
    eduTld: 'se',
    govTld: 'se',
    language: 'sv',
    legalSmall: ['AB'],
    legalLarge: ['AB', 'AB (publ)'],
    legalShare: 0.75,
    mobiles: ['+46 70 ### ## ##', '+46 72 ### ## ##', '+46 73 ### ## ##'],
    streets: ['Storgatan', 'Kungsgatan', 'Stationsgatan'],
    address: (rng, street) => `${street} ${rng.int(1, 120)}`,
    cultures: [
      ['nordic', 78],
      ['arabic', 8],
      ['slavic', 5],
      ['anglo', 3],
      ['german', 3],
      ['turkish', 3],
    ],
    states: [
      {
        name: 'Stockholms län',
        code: 'AB',
        weight: 6,
        cities: [
          C('Stockholm', ['11# ##'], '+46 8 ### ### ##', 4, ['Drottninggatan', 'Sveavägen', 'Birger Jarlsgatan', 'Regeringsgatan', 'Vasagatan', 'Hamngatan']),
          C('Solna', ['169 ##'], '+46 8 ### ### ##'),
        ],
      },
      {
        name: 'Västra Götalands län',
        code: 'O',
        weight: 2,
        cities: [C('Göteborg', ['41# ##'], '+46 31 ### ## ##', 1, ['Östra Hamngatan', 'Kungsportsavenyen'])],
      },
      {
        name: 'Skåne län',
        code: 'M',
        weight: 2,
        cities: [C('Malmö', ['21# ##'], '+46 40 ### ## ##', 1, ['Södra Förstadsgatan', 'Stortorget']), C('Lund', ['22# ##'], '+46 46 ## ## ##')],
      },
      { name: 'Uppsala län', code: 'C', weight: 1, cities: [C('Uppsala', ['75# ##'], '+46 18 ## ## ##')] },
    ],
  },
  {
    iso: 'CH',
    name: 'Switzerland',
    region: 'EMEA',
    weight: 1.5,
    tld: 'ch',
    eduTld: 'ch',
    govTld: 'admin.ch',
    language: 'de',
    legalSmall: ['GmbH', 'AG', 'Sàrl'],
    legalLarge: ['AG', 'SA'],
    legalShare: 0.8,
    mobiles: ['+41 76 ### ## ##', '+41 78 ### ## ##', '+41 79 ### ## ##'],
    streets: [],
    address: (rng, street) => (street.startsWith('Rue') || street.startsWith('Avenue') ? `${street} ${rng.int(1, 90)}` : `${street} ${rng.int(1, 150)}`),
    cultures: [
      ['german', 55],
      ['french', 20],
      ['italian', 12],
      ['slavic', 5],
      ['anglo', 5],
      ['turkish', 3],
    ],
    states: [
      {
        name: 'Zürich',
        code: 'ZH',
        weight: 5,
        cities: [
          C('Zürich', ['80##'], '+41 44 ### ## ##', 3, ['Bahnhofstrasse', 'Limmatquai', 'Seestrasse', 'Hardturmstrasse']),
          C('Winterthur', ['84##'], '+41 52 ### ## ##', 1, ['Technikumstrasse', 'Stadthausstrasse']),
        ],
      },
      {
        name: 'Genève',
        code: 'GE',
        weight: 2,
        cities: [C('Genève', ['12##'], '+41 22 ### ## ##', 1, ['Rue du Rhône', 'Rue de Lausanne', 'Quai du Mont-Blanc'])],
      },
      { name: 'Bern', code: 'BE', weight: 1.5, cities: [C('Bern', ['30##'], '+41 31 ### ## ##', 1, ['Spitalgasse', 'Bundesgasse'])] },
      { name: 'Basel-Stadt', code: 'BS', weight: 1.5, cities: [C('Basel', ['40##'], '+41 61 ### ## ##', 1, ['Aeschenvorstadt', 'Steinenberg'])] },
      { name: 'Vaud', code: 'VD', weight: 1, cities: [C('Lausanne', ['10##'], '+41 21 ### ## ##', 1, ['Avenue de la Gare', 'Rue de Bourg'])] },
      { name: 'Zug', code: 'ZG', weight: 1, cities: [C('Zug', ['630#'], '+41 41 ### ## ##', 1, ['Baarerstrasse', 'Gotthardstrasse'])] },
    ],
  },
  {
    iso: 'IN',
    name: 'India',
    region: 'APAC',
    weight: 5,
    tld: 'in',
    eduTld: 'ac.in',
    govTld: 'gov.in',
    language: 'en',
    legalSmall: ['Pvt. Ltd.', 'Private Limited'],
    legalLarge: ['Limited', 'Ltd.'],
    legalShare: 0.7,
    mobiles: ['+91 9#### #####', '+91 8#### #####', '+91 7#### #####'],
    streets: [],
    address: (rng, street) => (rng.chance(0.4) ? `Plot No. ${rng.int(1, 300)}, ${street}` : `${rng.int(1, 999)}, ${street}`),
    cultures: [
      ['indian', 97],
      ['anglo', 3],
    ],
    states: [
      {
        name: 'Karnataka',
        code: 'KA',
        weight: 6,
        cities: [C('Bengaluru', ['560###'], '+91 80 #### ####', 1, ['MG Road', 'Brigade Road', 'Outer Ring Road', 'Whitefield Main Road', 'Residency Road'])],
      },
      {
        name: 'Maharashtra',
        code: 'MH',
        weight: 6,
        cities: [
          C('Mumbai', ['400###'], '+91 22 #### ####', 2, ['Bandra Kurla Complex', 'Nariman Point', 'Lower Parel']),
          C('Pune', ['411###'], '+91 20 #### ####', 1, ['Baner Road', 'Hinjewadi Phase 1']),
        ],
      },
      { name: 'Delhi', code: 'DL', weight: 3, cities: [C('New Delhi', ['110###'], '+91 11 #### ####', 1, ['Connaught Place', 'Nehru Place'])] },
      { name: 'Haryana', code: 'HR', weight: 2, cities: [C('Gurugram', ['122###'], '+91 124 ### ####', 1, ['DLF Cyber City', 'Golf Course Road'])] },
      { name: 'Telangana', code: 'TG', weight: 3, cities: [C('Hyderabad', ['500###'], '+91 40 #### ####', 1, ['Hitech City Road', 'Gachibowli'])] },
      { name: 'Tamil Nadu', code: 'TN', weight: 3, cities: [C('Chennai', ['600###'], '+91 44 #### ####', 1, ['Anna Salai', 'Old Mahabalipuram Road'])] },
      { name: 'Uttar Pradesh', code: 'UP', weight: 1.5, cities: [C('Noida', ['201###'], '+91 120 ### ####', 1, ['Sector 62', 'Sector 18'])] },
    ],
  },
  {
    iso: 'JP',
    name: 'Japan',
    region: 'APAC',
    weight: 3,
    tld: 'co.jp',
    eduTld: 'ac.jp',
    govTld: 'go.jp',
    language: 'ja',
    legalSmall: ['K.K.', 'Co., Ltd.', 'Inc.'],
    legalLarge: ['Corporation', 'Co., Ltd.', 'Holdings, Inc.'],
    legalShare: 0.6,
    mobiles: ['+81 90-####-####', '+81 80-####-####', '+81 70-####-####'],
    streets: [],
    address: (rng, street) => `${rng.int(1, 9)}-${rng.int(1, 20)}-${rng.int(1, 30)} ${street}`,
    cultures: [
      ['japanese', 96],
      ['anglo', 2],
      ['chinese', 2],
    ],
    states: [
      {
        name: 'Tokyo',
        code: '13',
        weight: 8,
        cities: [
          C('Tokyo', ['100-####', '105-####', '106-####', '150-####', '160-####'], '+81 3-####-####', 1, [
            'Marunouchi, Chiyoda-ku',
            'Otemachi, Chiyoda-ku',
            'Shibuya, Shibuya-ku',
            'Roppongi, Minato-ku',
            'Nihonbashi, Chuo-ku',
            'Nishi-Shinjuku, Shinjuku-ku',
            'Shiba, Minato-ku',
          ]),
        ],
      },
      {
        name: 'Osaka',
        code: '27',
        weight: 3,
        cities: [C('Osaka', ['530-####', '541-####'], '+81 6-####-####', 1, ['Umeda, Kita-ku', 'Honmachi, Chuo-ku', 'Namba, Chuo-ku', 'Kitahama, Chuo-ku'])],
      },
      {
        name: 'Kanagawa',
        code: '14',
        weight: 1.5,
        cities: [C('Yokohama', ['220-####'], '+81 45-###-####', 1, ['Minatomirai, Nishi-ku', 'Kitasaiwai, Nishi-ku'])],
      },
      {
        name: 'Aichi',
        code: '23',
        weight: 1.5,
        cities: [C('Nagoya', ['450-####', '460-####'], '+81 52-###-####', 1, ['Meieki, Nakamura-ku', 'Sakae, Naka-ku'])],
      },
      {
        name: 'Fukuoka',
        code: '40',
        weight: 1,
        cities: [C('Fukuoka', ['810-####', '812-####'], '+81 92-###-####', 1, ['Tenjin, Chuo-ku', 'Hakataekimae, Hakata-ku'])],
      },
    ],
  },
  {
    iso: 'AU',
    name: 'Australia',
    region: 'APAC',
    weight: 3.5,
    tld: 'com.au',
    eduTld: 'edu.au',
    govTld: 'gov.au',
    language: 'en',
    legalSmall: ['Pty Ltd', 'Pty Ltd'],
    legalLarge: ['Limited', 'Ltd'],
    legalShare: 0.6,
    mobiles: ['+61 4## ### ###'],
    streets: [],
    address: (rng, street) => (rng.chance(0.4) ? `Level ${rng.int(1, 45)}, ${rng.int(1, 600)} ${street}` : `${rng.int(1, 600)} ${street}`),
    cultures: [
      ['anglo', 58],
      ['chinese', 10],
      ['indian', 9],
      ['italian', 4],
      ['vietnamese', 4],
      ['greek', 4],
      ['irish', 6],
      ['korean', 2],
      ['arabic', 3],
    ],
    states: [
      {
        name: 'New South Wales',
        code: 'NSW',
        weight: 6,
        cities: [C('Sydney', ['20##'], '+61 2 #### ####', 1, ['George Street', 'Pitt Street', 'Kent Street', 'Market Street', 'Elizabeth Street'])],
      },
      {
        name: 'Victoria',
        code: 'VIC',
        weight: 5,
        cities: [C('Melbourne', ['30##', '31##'], '+61 3 #### ####', 1, ['Collins Street', 'Bourke Street', 'Flinders Street', 'Elizabeth Street'])],
      },
      {
        name: 'Queensland',
        code: 'QLD',
        weight: 2.5,
        cities: [C('Brisbane', ['40##'], '+61 7 #### ####', 1, ['Queen Street', 'Adelaide Street', 'Eagle Street'])],
      },
      { name: 'Western Australia', code: 'WA', weight: 1.5, cities: [C('Perth', ['60##'], '+61 8 #### ####', 1, ['St Georges Terrace', 'Hay Street'])] },
      {
        name: 'Australian Capital Territory',
        code: 'ACT',
        weight: 1,
        cities: [C('Canberra', ['26##'], '+61 2 #### ####', 1, ['Northbourne Avenue', 'London Circuit'])],
      },
      { name: 'South Australia', code: 'SA', weight: 1, cities: [C('Adelaide', ['50##'], '+61 8 #### ####', 1, ['King William Street', 'Grenfell Street'])] },
    ],
  },
  {
    iso: 'SG',
    name: 'Singapore',
    region: 'APAC',
    weight: 1.5,
    tld: 'com.sg',
    eduTld: 'edu.sg',
    govTld: 'gov.sg',
    language: 'en',
    legalSmall: ['Pte. Ltd.'],
    legalLarge: ['Pte. Ltd.', 'Limited'],
    legalShare: 0.8,
    mobiles: ['+65 9### ####', '+65 8### ####'],
    streets: [
      'Raffles Place',
      'Marina Boulevard',
      'Shenton Way',
      'Anson Road',
      'Orchard Road',
      'Robinson Road',
      'Cecil Street',
      'Beach Road',
      'Science Park Road',
    ],
    address: (rng, street) => `${rng.int(1, 200)} ${street}, #${String(rng.int(2, 40)).padStart(2, '0')}-${String(rng.int(1, 12)).padStart(2, '0')}`,
    cultures: [
      ['chinese', 64],
      ['malay', 13],
      ['indian', 12],
      ['anglo', 8],
      ['japanese', 3],
    ],
    states: [{ name: '', code: '', weight: 1, cities: [C('Singapore', ['01####', '04####', '06####', '11####', '23####'], '+65 6### ####')] }],
  },
];

/** A street for an address in the place: one of the city's own now and then, else a generic one of the country. */
export function pickStreet(rng: Rng, place: { country: Country; city: City }): string {
  const own = place.city.streets;
  if (own && (place.country.streets.length === 0 || rng.chance(0.65))) return rng.pick(own);
  return rng.pick(place.country.streets);
}

export const COUNTRY_BY_ISO: ReadonlyMap<string, Country> = new Map(COUNTRIES.map((c) => [c.iso, c]));

export function countryByIso(iso: string): Country {
  const c = COUNTRY_BY_ISO.get(iso);
  if (!c) throw new Error(`unknown country ${iso}`);
  return c;
}

/** A resolved place: everything the company, network and person rows say about a location. */
export interface Place {
  country: Country;
  state: State;
  city: City;
}

export function findPlace(iso: string, cityName: string): Place {
  const country = countryByIso(iso);
  for (const state of country.states) {
    for (const city of state.cities) if (city.name === cityName) return { country, state, city };
  }
  throw new Error(`unknown city ${cityName} in ${iso}`);
}

/** Data-centre locations of hosting networks. */
export const DATA_CENTRES: readonly (readonly [string, string, number])[] = [
  ['US', 'Ashburn', 8],
  ['US', 'Santa Clara', 3],
  ['US', 'Dallas', 3],
  ['US', 'Chicago', 2],
  ['US', 'Phoenix', 2],
  ['US', 'Hillsboro', 2],
  ['US', 'New York', 2],
  ['DE', 'Frankfurt am Main', 4],
  ['NL', 'Amsterdam', 4],
  ['GB', 'London', 4],
  ['IE', 'Dublin', 3],
  ['FR', 'Paris', 2],
  ['SE', 'Stockholm', 1],
  ['SG', 'Singapore', 3],
  ['JP', 'Tokyo', 2],
  ['AU', 'Sydney', 2],
  ['IN', 'Mumbai', 2],
  ['BR', 'São Paulo', 2],
  ['CA', 'Montreal', 1],
];
