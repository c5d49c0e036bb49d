/**
 * Word lists that company names are built from: compound brands ("North" + "wind" = Northwind), coined
 * brands ("Vo" + "lex" + "ia" = Volexia), place words, and the patterns of universities, schools,
 * government bodies and non-profits.
 */

const w = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

export const BRAND_PREFIXES = w(
  'North, South, East, West, Blue, Red, Green, Silver, Gold, Iron, Stone, Bright, Clear, Swift, True, High, Deep, Wide, Far, Star, Sun, ' +
    'Moon, Sky, Cloud, River, Lake, Ocean, Harbor, Cedar, Oak, Pine, Maple, Birch, Willow, Aspen, Summit, Ridge, Crest, Granite, Cobalt, ' +
    'Copper, Amber, Crimson, Indigo, Evergreen, Bay, Fox, Hawk, Falcon, Eagle, Wolf, Bear, Lion, Orca, Raven, Kestrel, Sterling, Noble, ' +
    'Prime, Apex, Vertex, Zenith, Nova, Polar, Arctic, Coral, Sage, Ember, Frost, Storm, Thunder, Open, Bold, Keen, Lumen, Terra, Aqua, ' +
    'Alpine, Meadow, Glacier, Canyon, Mesa, Prairie, Sierra, Tidal, Solar, Lunar, Astra, Echo, Atlas, Beacon, Anchor, Compass, Harvest',
);

export const BRAND_ROOTS = w(
  'wind, peak, ridge, field, stone, bridge, gate, point, wave, line, leaf, way, light, path, brook, haven, crest, rock, works, spring, ' +
    'forge, stream, port, view, vale, wood, hill, mark, shore, side, star, sky, bay, well, water, land, fall, glen, grove, hurst, ford, ' +
    'mont, ton, worth, beam, bit, cast, core, craft, dale, fire, flow, gear, grid, hub, loop, mind, nest, pulse, scale, shift, spark, ' +
    'sphere, sync, tide, trail, vista, lane, field, wick, moor, crown, arch',
);

export const COINED_STARTS = w(
  'Ze, Vo, Qua, No, Lu, Ve, Ax, Cy, Ky, Ori, Syn, Tri, Zy, Ne, Ar, Vi, Al, En, Om, Xe, Ta, Ro, Be, Da, Mi, Pra, Sol, Cor, Flu, Gra, Ka, Le, Mo, Pe, Su, Tu, Va, Ya',
);
export const COINED_MIDDLES = w('n, r, l, v, x, t, nt, rv, lex, ric, mat, tiv, ven, lar, qu, mer, dex, pli, vor, cel, ton, gen, ber, tal, sen');
export const COINED_ENDS = w('ia, ix, on, ara, ex, era, ium, os, ly, io, a, o, us, eon, ify, yx, ant, ent, is, um, ica, ova, ity');

export const PLACE_WORDS = w(
  'Pacific, Atlantic, Northern, Southern, Coastal, Metro, Capital, Continental, Global, United, National, Western, Eastern, Central, ' +
    'Highland, Lakeshore, Riverside, Valley, Meridian, Keystone, Heritage, Pioneer, Liberty, Frontier, Crossroads, Landmark, Union, ' +
    'Premier, Allied, Consolidated, Standard, Sovereign, Regal, Imperial, Cornerstone, Bedrock, Benchmark, Paramount, Pinnacle',
);

/** US-only place words. */
export const US_PLACE_WORDS = w(
  'American, Midwest, Great Lakes, Gulf Coast, Rocky Mountain, Bay Area, Tri-State, New England, Appalachian, Lone Star, Golden State, Empire State, Heartland, Cascade',
);

/**
 * Name patterns of public bodies and schools. Keys: `us` (United States), then languages (`en` is the
 * rest of the English-speaking world). `{city}`, `{state}`, `{surname}` (of the country's main naming
 * culture), `{brand}` and `{place}` are filled in.
 */
export type PatternSet = Partial<Record<'us' | 'en' | 'de' | 'fr' | 'es' | 'pt' | 'it' | 'nl' | 'sv' | 'ja', string[]>>;

/** Government bodies by sub-industry. */
export const GOVERNMENT_PATTERNS: Record<string, PatternSet> = {
  'Local Government': {
    us: ['City of {city}', '{city} City Council', '{surname} County', 'Town of {brand}', '{brand} Township', '{surname} County Board of Supervisors'],
    en: ['{city} City Council', 'City of {city}', '{city} Metropolitan Council'],
    de: ['Stadt {city}', 'Stadtverwaltung {city}'],
    fr: ['Ville de {city}', 'Mairie de {city}'],
    es: ['Ayuntamiento de {city}', 'Municipio de {city}'],
    pt: ['Prefeitura de {city}', 'Câmara Municipal de {city}'],
    it: ['Comune di {city}'],
    nl: ['Gemeente {city}'],
    sv: ['{city} kommun', '{city} stad'],
    ja: ['{city} City Office'],
  },
  'Public Health': {
    us: ['{state} Department of Health', '{city} Public Health Department', '{surname} County Health Department'],
    en: ['{city} Public Health Authority', '{state} Health Service'],
    de: ['Gesundheitsamt {city}'],
    fr: ['Agence Régionale de Santé {state}'],
    es: ['Servicio de Salud de {state}'],
    pt: ['Secretaria Municipal de Saúde de {city}'],
    it: ['Azienda Sanitaria Locale {city}'],
    nl: ['GGD {city}'],
    sv: ['Smittskydd {city}'],
    ja: ['{city} Public Health Center'],
  },
  'Transportation Agencies': {
    us: ['{state} Department of Transportation', '{city} Transit Authority', '{city} Airport Authority', 'Port of {city}'],
    en: ['{city} Transport Authority', 'Port of {city}', '{state} Roads Authority'],
    de: ['Verkehrsbetriebe {city}'],
    fr: ['Régie des Transports de {city}'],
    es: ['Consorcio de Transportes de {city}'],
    pt: ['Companhia de Transportes de {city}'],
    it: ['Azienda Trasporti {city}'],
    nl: ['Vervoerregio {city}'],
    sv: ['Kollektivtrafiken {city}'],
    ja: ['{city} Transportation Bureau'],
  },
  'Public Safety': {
    us: ['{city} Police Department', '{city} Fire Department', "{surname} County Sheriff's Office", '{city} Office of Emergency Management'],
    en: ['{city} Fire and Rescue Service', '{state} Police', '{city} Emergency Services'],
    de: ['Polizeipräsidium {city}', 'Feuerwehr {city}'],
    fr: ['Sapeurs-Pompiers de {city}'],
    es: ['Policía Municipal de {city}'],
    pt: ['Guarda Municipal de {city}'],
    it: ['Polizia Locale di {city}'],
    nl: ['Brandweer {city}'],
    sv: ['Räddningstjänsten {city}'],
    ja: ['{city} Fire Department'],
  },
};

export const UNIVERSITY_PATTERNS: PatternSet = {
  us: [
    'University of {city}',
    '{city} University',
    '{city} State University',
    '{surname} College',
    '{surname} University',
    '{brand} College',
    '{city} Institute of Technology',
    '{city} Community College',
    '{place} University',
  ],
  en: ['University of {city}', '{city} University', '{city} Institute of Technology', '{surname} College', '{city} College of Business'],
  de: ['Universität {city}', 'Hochschule {city}', 'Hochschule für Wirtschaft {city}', 'Fachhochschule {city}'],
  fr: ['Université de {city}', 'École Supérieure de Commerce de {city}', 'Institut Polytechnique de {city}'],
  es: ['Universidad de {city}', 'Universidad Tecnológica de {city}', 'Escuela de Negocios de {city}'],
  pt: ['Universidade de {city}', 'Universidade Estadual de {state}', 'Faculdade de Tecnologia de {city}'],
  it: ['Università di {city}', 'Politecnico di {city}', 'Università degli Studi di {city}'],
  nl: ['Universiteit {city}', 'Hogeschool {city}', 'Technische Universiteit {city}'],
  sv: ['{city} universitet', 'Högskolan i {city}', '{city} tekniska högskola'],
  ja: ['{city} University', '{city} Institute of Technology', '{surname} Gakuen University'],
};

export const SCHOOL_PATTERNS: PatternSet = {
  us: [
    '{city} Unified School District',
    '{city} Public Schools',
    '{surname} High School',
    '{brand} Elementary School',
    '{brand} Academy',
    '{surname} Preparatory School',
    '{place} Charter Schools',
    '{brand} Independent School District',
  ],
  en: ['{city} Grammar School', '{surname} Academy', '{city} International School', '{brand} College', '{surname} High School'],
  de: ['{surname}-Gymnasium {city}', 'Internationale Schule {city}', '{surname}-Realschule {city}'],
  fr: ['Lycée {surname}', 'École Internationale de {city}', 'Collège {surname}'],
  es: ['Colegio {surname}', 'Colegio Internacional de {city}', 'Instituto {surname}'],
  pt: ['Colégio {surname}', 'Escola Internacional de {city}', 'Colégio Estadual {surname}'],
  it: ['Liceo {surname}', 'Scuola Internazionale di {city}', 'Istituto Comprensivo {surname}'],
  nl: ['{surname} College', 'Internationale School {city}', '{surname} Lyceum'],
  sv: ['{surname}skolan', 'Internationella Skolan {city}', '{city} gymnasium'],
  ja: ['{city} International School', '{surname} Gakuen', '{city} Senior High School'],
};

/** Non-profit name patterns by sub-industry. */
export const NONPROFIT_PATTERNS: Record<string, string[]> = {
  'Charitable Organizations': [
    'Friends of {city} Parks',
    '{city} Food Bank',
    'Center for {cause}',
    '{brand} Coalition',
    '{place} Council for {cause}',
    '{city} Youth Alliance',
    '{brand} Trust',
  ],
  'Professional Associations': [
    '{place} Association of {profession}',
    '{place} Society of {profession}',
    '{brand} Institute',
    '{state} Chamber of Commerce',
    '{city} Business Network',
  ],
  Foundations: ['{place} Foundation', '{surname} Family Foundation', '{city} Community Foundation', '{brand} Foundation', '{surname} Charitable Trust'],
};

export const PROFESSIONS = w(
  'Engineers, Accountants, Nurses, Architects, Marketing Professionals, Data Scientists, Realtors, Educators, Pharmacists, Software Developers, Supply Chain Professionals, Human Resources Professionals',
);
export const CAUSES = w(
  'Digital Inclusion, Clean Water, Early Literacy, Financial Education, Climate Action, Housing Equity, Rural Health, Youth Leadership, Ocean Conservation, Workforce Development, Public Policy, Open Data',
);
