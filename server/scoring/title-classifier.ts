/**
 * Job-title classifier: a lead's free-text `title` → `titleLevel` (org-structure level) and
 * `titleFunction` (the function the person works in), as returned by the people-level APIs.
 *
 * Pure, deterministic and on request hot paths: every regex is compiled once at module load and a
 * title costs one normalisation plus a handful of regex scans (no allocation-heavy tokenising).
 *
 * How a title is read
 * 1. Normalise: lower case, accents stripped (NFKD), `ß`→`ss`, dotted acronyms joined (`V.P.`→`vp`),
 *    then one pass over the runs of non-letters: a run holding a list separator (`,` `/` `|` `;` `:`
 *    `()`, spaced or long dashes) becomes the boundary token ` , `, one holding `&`/`+` becomes ` and `,
 *    any other a single space; runs at the edges go. Only the first 200 characters count. Latin-script
 *    languages only: other scripts normalise to nothing (blank).
 * 2. Administrative support ("Executive Assistant", "Assistant to the CFO", "EA to CEO",
 *    "Assistentin der Geschäftsführung", receptionist, secretary) is Staff / Operations, whatever
 *    senior words it names — an assistant to the CEO is not a CEO.
 * 3. "… to/for the CEO", "office of the CEO" (advisor to the board, chief of staff to the CEO) names
 *    whom the person serves, not their own level, so it is removed before level and function are read.
 * 4. Level: the most senior signal wins (C-Level > VP > Director > Manager), else Staff when any
 *    role or function is recognised, else "" (blank or unrecognisable). Seniority words are taken
 *    literally, as the big data vendors do: "Account Manager", "Product Manager" are Manager,
 *    "Account Director" is Director; span of control is not knowable from a title.
 * 5. Function: the first match of an ordered list of tiers; within a tier the leftmost phrase wins
 *    ("Sales & Marketing Director" → Sales). Tiers, strongest first: explicit compounds and C-suite
 *    acronyms ("product marketing", "CTO"); professions whose noun decides the function whatever
 *    qualifies it ("Marketing Professor", "IT Recruiter"); business functions (Sales, Marketing, HR,
 *    Finance, Legal, Procurement, Customer Success, Product, Design); technical/domain functions
 *    (Engineering, IT, Data, Security, Research), which a business word beats ("Sales Engineer",
 *    "IT Sales Executive"); weak hints (operations, analyst, software, medical, school…); and last the
 *    generic executive words (founder, owner, president, managing director…), so any named function
 *    beats "Executive": "Co-Founder & CTO" → C-Level / Engineering, "CEO & Founder" → Executive.
 *
 * Level precedence decisions (each one a sales-ops convention; see the tests for the full table)
 * - C-Level: Chief … Officer and C-suite acronyms (CEO, CFO, CTO, CISO, …), President (never
 *   "Vice President"), Founder/Co-Founder, Owner (not "Product/Process Owner"), firm Partner (not
 *   "Partner Manager", "HR Business Partner"), bare firm "Principal", Managing Director (UK/EU usage:
 *   the top executive), Geschäftsführer, Directeur Général/PDG/DG, Director General, Gerente General,
 *   Consejero Delegado, Amministratore Delegato, board roles (Chairman, Board Member, Vorstand,
 *   Non-Executive Director), General Counsel (the company's top lawyer), self-employed/entrepreneur.
 *   The statutory CFO titles of French/Iberian/Italian companies (DAF, Director Financiero, Diretor
 *   Financeiro, Directeur Financier, Direttore Finanziario) are C-Level; other "Director X" titles in
 *   those languages are Director.
 * - VP: Vice President and SVP/EVP/AVP/RVP/GVP/CVP (an Assistant VP is a VP-tier title in banking),
 *   General Manager/GM (runs a P&L but usually reports to a C-level), Deputy General Counsel.
 * - Director: Director (incl. Senior/Executive/Associate/Assistant/Deputy Director), Head of X and
 *   Hoofd (usually a function head below VP; Director is the median reading), Leiter X / X-leiter /
 *   Abteilungs- and Bereichsleiter, Directeur/Director/Diretor/Direttore/Direktor, Controller (head of
 *   accounting), Chief of Staff (a senior operator, not an officer), Chief Engineer/Architect, Dean,
 *   school Principal/Headteacher, Prokurist, Assistant/Deputy GM, Associate/Assistant General Counsel.
 * - Manager: Manager/Mgr (incl. Senior and Assistant Manager), Supervisor, Foreman, Team Lead,
 *   "X Lead" (Talent Acquisition Lead) — but "Lead X" (Lead Engineer) and Tech Lead are senior ICs,
 *   Gerente, Jefe, Responsable (FR/ES/IT), Chef de …, Teamleiter/Gruppenleiter/Projektleiter,
 *   Coordenador (Brazilian usage: a team manager), PM/CSM/TPM (… Manager), Assistant Controller.
 * - Staff: everyone else with a recognised role: individual contributors, Senior/Principal/Staff/Lead
 *   engineers, Professors, Associate, Intern, "Assistant" (not Assistant Director/Manager/VP).
 * - "": blank, punctuation, placeholders ("n/a", "unknown"), retired/former roles, unrecognised words,
 *   and genuinely ambiguous bare words ("MD": managing director or physician; "Executive").
 *   `titleFunction` is "" exactly when `titleLevel` is "".
 */
import { z } from 'zod';
import { TITLE_FUNCTIONS, TITLE_LEVELS } from '../../core/vocabulary.ts';
import { boundedMemo } from '../cache/bounded-cache.ts';

// Levels (TITLE_LEVELS, most to least senior) and functions (TITLE_FUNCTIONS) are the product's vocabulary:
// core/vocabulary.ts.
export { TITLE_FUNCTIONS, TITLE_LEVELS };

/**
 * Functions. Beyond the common CRM list we keep `Information Security`, `Design`, `Procurement`,
 * `Education`, `Healthcare` and `Research` separate because buyers target them on their own (a CISO
 * buys differently from a CIO; hospitals and schools are whole markets). Administrative support,
 * project/program management, facilities and supply chain are `Operations`; payroll is `Finance`;
 * communications/PR, events and developer relations are `Marketing`; Account Managers and partnerships
 * are `Sales`; R&D is `Engineering` (in the software companies that dominate B2B lists R&D is the
 * engineering org); generic "Analyst" is `Data & Analytics`; corporate strategy is `Executive`.
 * `Other` = a level was recognised but no function ("Director", "Vice President", "Consultant").
 */

export const TitleLevelSchema = z.union([z.enum(TITLE_LEVELS), z.literal('')]);
export const TitleFunctionSchema = z.union([z.enum(TITLE_FUNCTIONS), z.literal('')]);
export const TitleClassificationSchema = z.object({ titleLevel: TitleLevelSchema, titleFunction: TitleFunctionSchema });
export type TitleLevel = z.infer<typeof TitleLevelSchema>;
export type TitleFunction = z.infer<typeof TitleFunctionSchema>;
export type TitleClassification = z.infer<typeof TitleClassificationSchema>;

type KnownFunction = (typeof TITLE_FUNCTIONS)[number];
type Level = (typeof TITLE_LEVELS)[number];

/** Titles are short; capping the input bounds the work any hostile or corrupt value can cost. */
const MAX_TITLE_CHARS = 200;
/** A fresh object per call: callers own (and may extend) what they get back. */
const blank = (): TitleClassification => ({ titleLevel: '', titleFunction: '' });

// ---------------------------------------------------------------------------------------------------
// Normalisation

// biome-ignore lint/suspicious/noControlCharactersInRegex: \x00-\x7f is all of ASCII (control characters included) so the class is "anything else".
const NON_ASCII = /[^\x00-\x7f]/;
const COMBINING_MARKS = /\p{M}+/gu;
const LIGATURES: Readonly<Record<string, string>> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ı: 'i', þ: 'th' };
const LIGATURE_RE = /[ßæœøłđıþ]/g;
/** `v.p.` → `vp.`, `c.e.o.` → `ceo.` (a dot between single letters is an abbreviation, not a break). */
const DOTTED_ACRONYM_RE = /\b([a-z])\.(?=[a-z]\b)/g;
/** Every run of characters that are not letters or digits; one pass decides what each run becomes. */
const NON_WORD_RUN_RE = /[^a-z0-9]+/g;
/** A run holding a list separator: `,` `/` `|` `;` `:` brackets, dashes with spaces around them, em/en dashes. */
const SEPARATOR_IN_RUN_RE = /[,;:|/\\()[\]{}<>•·–—…!?"“”«»]|\s-+\s/;

function replaceRun(run: string, offset: number, whole: string): string {
  if (offset === 0 || offset + run.length === whole.length) return ''; // trim the edges
  if (SEPARATOR_IN_RUN_RE.test(run)) return ' , '; // keeps "Lead, EMEA" and "CEO / Founder" apart
  if (run.includes('&') || run.includes('+')) return ' and ';
  return ' ';
}

function normalize(raw: string): string {
  let s = (raw.length > MAX_TITLE_CHARS ? raw.slice(0, MAX_TITLE_CHARS) : raw).toLowerCase();
  if (NON_ASCII.test(s))
    s = s
      .normalize('NFKD')
      .replace(COMBINING_MARKS, '')
      .replace(LIGATURE_RE, (c) => LIGATURES[c] ?? c);
  if (s.includes('.')) s = s.replace(DOTTED_ACRONYM_RE, '$1');
  return s.replace(NON_WORD_RUN_RE, replaceRun);
}

// ---------------------------------------------------------------------------------------------------
// Shared phrase fragments (regex sources over the normalised text)

const r = String.raw;
const any = (...parts: string[]) => parts.join('|');

/** Region words that may follow a trailing "Lead" ("Marketing Lead EMEA"). */
const REGIONS = 'emea|apac|amer|americas|na|latam|dach|uk|us|usa|eu|europe|global|north|south|east|west|central|nordics|benelux|anz|international';

const C_SUITE_ACRONYMS = 'ceo|cfo|cto|cmo|cio|ciso|coo|cro|cpo|cdo|cdao|caio|cso|cco|chro|clo|cno|cmio|cao|cxo|cbo|cgo|cpto';

/** "President" but never "Vice President" / "Vizepräsident" / "Vicepresidente". */
const PRESIDENT = r`\b(?:president|presidente|presidenta|prasident(?:in)?|praesident(?:in)?|voorzitter)\b(?<!\bvice \w+)`;

/** Owner of a business, not of a product, process, account or backlog. */
const OWNER = r`\b(?:co ?)?owners?\b(?<!\b(?:product|process|service|services|data|system|systems|platform|content|technical|application|account|budget|feature|program|project|risk|control|case|incident|change|release|test|solution|capability|journey|asset|domain|policy|site|page|channel|relationship|category|brand|model|business process) (?:co ?)?owners?)`;

/** Words that make "Partner" a role rather than a firm partner ("HR Business Partner", "Channel Partner"). */
const PARTNER_NOT_OWNER =
  'business|channel|alliance|alliances|technology|tech|client|customer|hr|people|talent|finance|strategic|implementation|solution|solutions|integration|delivery|learning|training|knowledge|reseller|referral|sales|marketing|account|success|care|community|agency|it|thought|trusted|development|growth|engineering|data|product|program|recruiting|recruitment|transformation|gtm|ecosystem|cloud|service|services|support|category|vendor|supplier|associate';
const PARTNER_ROLE_NOUNS =
  'manager|managers|management|marketing|sales|account|accounts|development|success|program|programs|relations|enablement|engineer|engineering|solutions|operations|ops|alliances|channel|ecosystem|specialist|lead|director|executive|coordinator|representative|integration|integrations|support|strategy|onboarding|partnerships|network|recruitment|experience|technology|service|services|associate|consultant|team|portal|programme';
const FIRM_PARTNER = r`\bpartners?\b(?<!\b(?:${PARTNER_NOT_OWNER}) partners?)(?! (?:${PARTNER_ROLE_NOUNS})\b)`;

/** A bare "Principal" (of a firm): "Principal", "Principal, Acme", "Principal and Founder". */
const BARE_PRINCIPAL = r`\bprincipal\b(?<!\b(?:assistant|vice|deputy|associate) principal)(?= *(?:$|,|and\b|at\b|of\b|in\b|with\b))`;

const FOUNDER = any(
  r`\b(?:co ?)?found(?:er|ers|ress)\b`,
  r`\b(?:co ?)?fondat(?:eur|eurs|rice|rices|ore|ori)\b`,
  r`\b(?:co ?)?fundador(?:a|es|as)?\b`,
  r`\b(?:mit|co ?)?gr(?:u|ue)nder(?:in|innen)?\b`,
  r`\b(?:mede ?)?oprichter\b`,
);

/** Owners and partners in other languages. */
const OWNER_LOCAL = r`\b(?:inhaber(?:in)?|eigenaa?r(?:esse)?|eigent(?:u|ue)mer(?:in)?|proprietaire|propietari[oa]|proprietari[oa]|proprietor|proprietress|duen[oa]|titolare|gerant(?:e)?|teilhaber(?:in)?|gesellschafter(?:in)?|vennoot|socio|socia|associee?|business owner)\b`;

/** CEO equivalents: the single top executive of the company. */
const CEO_EQUIVALENT = any(
  r`\b(?:co )?ceos?\b|\bchief executive\b|vorstandsvorsitz\w*`,
  r`\bgeneraldirektor\w*`,
  r`\bdirect(?:eur|rice)s? generale?s?\b`,
  r`\bdirector(?:a|es)? general(?:es)?\b`,
  r`\bdiretor(?:a)? (?:geral|gerente|presidente)\b`,
  r`\bdirett(?:ore|rice) general[ei]\b`,
  r`\balgemeen directeur\b`,
  r`\bgerente general\b|\bgerente geral\b`,
  r`\bamministratore (?:delegato|unico)\b`,
  r`\bconsejer[oa] delegad[oa]\b`,
  r`\bdirector(?:a)? ejecutiv[oa]\b`,
  r`\bpresident directeur general\b|\bpdg\b|\bdga?\b`,
  r`\bdirecteur grootaandeelhouder\b`,
);

/** Managing titles at the top of a company that still take a function qualifier ("Geschäftsführer Vertrieb"). */
const MANAGING_TOP = any(r`\bmanaging directors?\b`, r`\bgesch(?:a|ae)ftsf(?:u|ue)hr\w*`, r`\bgesch(?:a|ae)ftsleit\w*`, r`\bunternehmensleit\w*`);

/** The statutory CFO title of French, Iberian and Italian companies (there is rarely a "Chief Financial Officer"). */
const ROMANCE_CFO = any(
  r`\bdaf\b|\bdirect(?:eur|rice) administrati(?:f|ve) et financ\w*`,
  r`\bdirect(?:eur|rice) financi(?:er|ere)\b|\bdirector(?:a)? financier[oa]\b|\bdiretor(?:a)? financeir[oa]\b|\bdirett(?:ore|rice) finanziari[oa]\b`,
);

const BOARD = any(
  r`\bboard\b(?<!\badvisory board) (?:members?|directors?|of directors|chair\w*)\b`,
  r`\bmembers? of the (?:supervisory |executive |management )?board\b`,
  r`\b(?:non executive|independent|outside) directors?\b`,
  r`\bchair(?<!\bdepartment chair)(?:man|men|woman|women|person|persons)?\b`,
  r`vorstand\w*`,
  r`\baufsichtsrat\w*|\bverwaltungsrat\w*`,
);

// ---------------------------------------------------------------------------------------------------
// Levels

const C_LEVEL_RE = new RegExp(
  any(
    r`\bchief\b(?! of staff\b| engineer| architect| resident\b)`,
    r`\b(?:co )?(?:${C_SUITE_ACRONYMS})s?\b`,
    PRESIDENT,
    FOUNDER,
    OWNER,
    OWNER_LOCAL,
    FIRM_PARTNER,
    CEO_EQUIVALENT,
    MANAGING_TOP,
    ROMANCE_CFO,
    BOARD,
    r`\bgeneral counsel\b(?<!\b(?:assistant|associate|deputy) general counsel)`,
    r`\b(?:c level|c suite|entrepreneur\w*|self employed|selbst(?:st)?andig\w*|autonom[oa])\b`,
    BARE_PRINCIPAL,
  ),
);

const VP_RE = new RegExp(
  any(
    r`\bvice pres(?:ident\w*)?\b`,
    r`\bvicepresident\w*`,
    r`\bvizepr(?:a|ae)sident\w*`,
    r`\b(?:vp|vps|svp|evp|avp|rvp|gvp|cvp)\b`,
    r`\bgeneral manag(?:er|ers)\b(?<!\b(?:assistant|associate|deputy) general manag\w+)`,
    r`\bgms?\b`,
    r`\bdeputy general counsel\b`,
  ),
);

/** Controller as head of accounting ("Financial Controller", "Corporate Controller"), not "Credit Controller". */
const CONTROLLER_AS_HEAD = r`(?:^|, |\band )(?:(?:senior|sr|financial|finance|corporate|group|divisional|division|plant|regional|global|country|company|entity|international|us|emea|europe) )*(?:controller|comptroller)s?\b`;

const DIRECTOR_RE = new RegExp(
  any(
    r`director(?:a|as|es|s)?\b`,
    r`\bdirs?\b`,
    r`(?:directeur|directrice|diretor|diretora|direttore|direttrice|direktor|direktorin|dirigente)s?\b`,
    r`\bheads?\b(?! (?:nurse|nurses|chef|cook|coach|waiter|waitress|cashier|bartender|teller|hunter|hunters|start)\b)`,
    r`hoofd\b`,
    r`\bdeans?\b`,
    r`\bheadteachers?\b|\bheadm(?:aster|istress)\b`,
    r`\bchief of staff\b|\bchief (?:engineer|architect)\w*`,
    r`\b(?:assistant|associate|deputy) general manag\w*`,
    r`\b(?:assistant|associate) general counsel\b`,
    r`\bassociate partner\b`,
    r`\bprokurist\w*`,
    r`\bdepartment chair\b`,
    r`\b(?:drh|dsi)\b`,
    CONTROLLER_AS_HEAD,
  ),
);

/** "X Lead" (Talent Acquisition Lead, Lead, EMEA) leads people; "Lead X" (Lead Engineer) and Tech Lead do not. */
const TRAILING_LEAD = r`\blead\b(?<!\b(?:tech|technical) lead)(?= *(?:$|,|and\b|of\b|for\b|at\b|in\b|to\b|(?:${REGIONS})\b))`;

const MANAGER_RE = new RegExp(
  any(
    r`manag(?:er|ers|eress|erin|erinnen)\b`,
    r`\b(?:mgr|mgrs|mngr|supervisor\w*|superviseu\w*|foreman|forewoman|foremen|foreperson|gerentes?|subgerente|responsables?|responsabile|jef[ae]s?|encargad[oa]s?|capo|leidinggevende|pms?|pmm|gpm|tpm|csms?|coordenador(?:a|es)?)\b`,
    r`\bhead (?:nurse|nurses|chef|cook|coach|waiter|waitress|cashier|bartender|teller)\b`,
    r`\bchef(?:fe)? (?:de|d|des|du)\b`,
    r`leider(?:s)?\b`,
    r`\b(?:team|group|squad|shift|project|site|practice|area|regional|country|pod|workstream) lead(?:er|ers|s)?\b`,
    r`\bteamlead\w*|\bleaders?\b(?<!\bthought leaders?)`,
    r`\b(?:assistant|associate|deputy) (?:controller|comptroller)s?\b`,
    TRAILING_LEAD,
  ),
);

/** German Leiter/Leitung compounds: the prefix says which tier ("Teamleiter" vs "Abteilungsleiter"). */
const LEITER_RE = /\b(\w*?)(?:leiter|leiterin|leiterinnen|leitung)\b/g;
const LEITER_MANAGER_PREFIX =
  /^(?:team|gruppen|projekt|filial|schicht|bau|objekt|markt|lager|kassen|stations?|kolonnen|sachgebiets|kita|praxis|kuchen|kundenbetreuungs)$/;

function leiterLevel(t: string): Level | '' {
  if (!t.includes('leit')) return '';
  let best: Level | '' = '';
  for (const m of t.matchAll(LEITER_RE)) {
    const prefix = m[1];
    if (prefix.endsWith('beg')) continue; // "Begleiter" (companion) is not a Leiter
    if (LEITER_MANAGER_PREFIX.test(prefix)) best ||= 'Manager';
    else return 'Director';
  }
  return best;
}

/** Role nouns that make a title recognisable (Staff) even when no function is named. */
const STAFF_RE = new RegExp(
  r`\b(?:${any(
    'specialists?',
    'associates?',
    'analysts?',
    'analista\\w*',
    'analyste\\w*',
    'coordinat\\w*',
    'coordinador\\w*',
    'representatives?',
    'reps?',
    'consultants?',
    'consultor\\w*',
    'consultant\\w*',
    'berater\\w*',
    'conseill\\w*',
    'advisors?',
    'advisers?',
    'officers?',
    'clerks?',
    'technicians?',
    'technicien\\w*',
    'techniker\\w*',
    'tecnic[oa]s?',
    'administrat(?:or|ors|eur|rice)',
    'administrador\\w*',
    'agents?',
    'assistants?',
    'assistent\\w*',
    'asistente\\w*',
    'assistente\\w*',
    'interns?',
    'internship',
    'trainees?',
    'apprentices?',
    'azubi',
    'auszubildende\\w*',
    'werkstudent\\w*',
    'praktikant\\w*',
    'stagiai\\w*',
    'stagista',
    'estagiari[oa]s?',
    'becari[oa]s?',
    'pasantes?',
    'alternant\\w*',
    'junior',
    'jr',
    'senior',
    'sr',
    'snr',
    'staff',
    'employees?',
    'employe\\w*',
    'empleado\\w*',
    'funcionari[oa]s?',
    'impiegat[oa]',
    'mitarbeiter\\w*',
    'medewerker\\w*',
    'sachbearbeiter\\w*',
    'referent\\w*',
    'charge',
    'chargee',
    'contractors?',
    'freelance\\w*',
    'workers?',
    'operators?',
    'operatives?',
    'volunteers?',
    'fellows?',
    'experts?',
    'generalists?',
    'members?',
    'professionals?',
    'practitioners?',
    'planners?',
    'schedulers?',
    'inspectors?',
    'mechanics?',
    'drivers?',
    'electricians?',
    'technologists?',
    'writers?',
    'editors?',
    'translators?',
    'interpreters?',
    'photographers?',
    'journalists?',
    'reporters?',
    'producers?',
    'artists?',
    'chefs?',
    'cooks?',
    'cashiers?',
    'bartenders?',
    'guards?',
    'pilots?',
    'attendants?',
    'laborers?',
    'labourers?',
    'carpenters?',
    'plumbers?',
    'welders?',
    'tellers?',
    'brokers?',
    'estimators?',
    'surveyors?',
    'evangelists?',
    'ambassadors?',
    'strategists?',
    'investigators?',
    'investors?',
    'controllers?',
    'owners?',
    'ejecutiv[oa]s?',
    'executivo\\w*',
    'lead',
  )})\b`,
);

// ---------------------------------------------------------------------------------------------------
// Functions: ordered tiers of [function, phrase] rules; the first tier with a match decides, and inside
// a tier the leftmost match wins (same position: the earlier rule).

type Rule = readonly [KnownFunction, string];

/** Tier 1: explicit compounds and C-suite acronyms, which override the words they are made of. */
const T1_COMPOUNDS: readonly Rule[] = [
  ['Information Security', r`\bciso\b|\bchief information security officer\b|\brssi\b`],
  ['IT', r`\bcio\b|\bchief information officer\b`],
  ['Executive', CEO_EQUIVALENT],
  [
    'Finance',
    r`\bcfo\b|\bdaf\b|\baccounts? (?:payable|receivable)\b|\bequity research\b|\binvestor relations\b|\bfp and a\b|\bfpa\b|\brevenue (?:accounting|accountant|cycle|recognition)\b|\bcredit controller\b|\bcontroleur de gestion\b|\bsales finance\b|\bcommercial finance\b|\bpayroll\b|\bpaie\b|\bnominas?\b|lohnbuchhalt\w*|\bfinanzvorstand\b|${ROMANCE_CFO}`,
  ],
  [
    'Engineering',
    r`\bcto\b|\bproduct engineer\w*|\bdesign engineer\w*|\bdev ?ops\b|\bsite reliability\b|\bsres?\b|\btechnical program manag\w*|\btpm\b|\bresearch and development\b|\br and d\b|\brnd\b|\bf and e\b|\bforschung und entwicklung\b|\brecherche et developpement\b|\binvestigacion y desarrollo\b|\bqa\b|\bquality assurance (?:engineer|analyst|tester|automation)\w*|\btest (?:automation|engineer)\w*|\bsdets?\b|\bsoftware (?:engineer|developer)\w*|\bscrum master\b|\bagile coach\b|\btechnical director\b|\bdirect(?:eur|rice) technique\b`,
  ],
  [
    'Customer Success',
    r`\bcustomer success\w*|\bclient success\b|\bcustomer (?:support|service|services|care|experience|onboarding|operations|advocacy|relations)\b|\bclient (?:services?|support|care)\b|\btechnical support\b|\btech support\b|\bsupport engineer\w*|\btechnical account manag\w*|\btams?\b|\bproduct support\b|\bprofessional services\b|\bimplementation (?:consultant|specialist|manager|engineer|lead)\w*|\bservice client\w*|\bcharge[e]? de clientele\b|\bservicio al cliente\b|\batencion al cliente\b|kundenservice\w*|kundendienst\w*|kundenbetreu\w*|\bklantenservice\b|\bcall cent(?:er|re)\b|\bcontact cent(?:er|re)\b|\bchief customer officer\b|\bcsms?\b|\bsoporte tecnico\b|\btecnic[oa] de soporte\b|\bsuporte tecnico\b|\banalista de suporte\b|\bsupport technique\b|\btechnicien(?:ne)? support\b`,
  ],
  ['Sales', r`\bcro\b|\bbusiness developers?\b|\bingenieur(?:e)? (?:commercial|commerciale|d affaires|technico commercial)\b|\bcharge[e]? d affaires\b`],
  [
    'Marketing',
    r`\bcmo\b|\bcgo\b|\bproduct marketing\b|\bproduktmarketing\b|\bpmms?\b|\bcustomer marketing\b|\bpartner marketing\b|\bdeveloper (?:relations|advocate|advocacy|evangelist)\b|\bdevrel\b|\bmarket (?:research|intelligence)\w*|\bmedia buy\w*`,
  ],
  ['Design', r`\bproduct design\w*|\bux research\w*|\buser research\w*|\bux writ\w*|\bcontent design\w*|\bcreative director\w*|\bart director\w*`],
  [
    'Human Resources',
    r`\brecruit\w*|\brecrut\w*|\breclut\w*|\brekrut\w*|\btalent acquisition\b|\btalent sourc\w*|\bsourcers?\b|\bhead ?hunters?\b|\bhr ?bps?\b|\bchro\b|\bemployer brand\w*|\blearning and development\b|\bl and d\b`,
  ],
  [
    'Legal',
    r`\bdata (?:protection|privacy)\b|\bdpos?\b|\bprivacy (?:officer|counsel)\b|\bgeneral counsel\b|\bpatent\w*|\bintellectual property\b|\b(?:company|corporate) secretary\b|\bregulatory affairs\b|\b(?:governance )?risk and compliance\b|\bgrc\b`,
  ],
  [
    'Operations',
    r`\bdata entry\b|\bsecurity guards?\b|\bloss prevention\b|\bhealth and safety\b|\behs\b|\bhse\b|\benvironmental health\b|\bdemand plann\w*|\bstrategy and operations\b|\bbusiness operations\b|\bbizops\b`,
  ],
  [
    'IT',
    r`\binformation technology\b|\binformation systems\b|\bit (?:support|service|services|helpdesk|operations)\b|\bhelp ?desk\b|\bservice ?desk\b|\bdesktop support\b|\bdatabase administrat\w*|\bdbas?\b|\bdata ?cent(?:er|re)s?\b|\bsystems? administrat\w*|\bsystemadministrat\w*|\bsys ?admins?\b|\bsystems engineer\w*|\bnetwork (?:engineer|administrator|admin|technician|architect)\w*|\bsalesforce (?:administrator|admin)\w*|\bsystemes d information\b|\bsistemas de informacion\b|\btecnologias? de (?:la )?informa(?:cion|cao)\b|\badministrador(?:a)? de sistemas\b|\benterprise applications\b|\bbusiness (?:applications|systems)\b`,
  ],
  [
    'Information Security',
    r`\binformation security\b|\binfo ?sec\b|\bcyber\w*|\b(?:it|application|app|network|cloud|product|offensive|enterprise|endpoint|data) security\b|\bappsec\b|\bsecops\b|\bdevsecops\b|\bsecurity(?<!\bsocial security) (?:engineer|architect|analyst|operations|researcher|officer|consultant|specialist)\w*|\bsoc analyst\w*|\bpenetration test\w*|\bpen ?test\w*|\bethical hacker\w*|\bthreat (?:intelligence|hunter|analyst)\w*|\bvulnerability\b|\bincident response\b|\bidentity and access\b|\binformationssicherheit\b|\bit sicherheit\b|\bsecurite (?:informatique|des systemes)\b|\bseguridad (?:informatica|de la informacion)\b|\bsicurezza informatica\b`,
  ],
  ['Data & Analytics', r`\bbi\b|\bbusiness intelligence\b|\bdata scien\w*|\bcdao?\b|\bcaio\b|\bmlops\b`],
  ['Research', r`\bprincipal investigators?\b|\bclinical research\b|\bclinical trials?\b`],
  [
    'Education',
    r`\binstructional design\w*|\bteaching assistants?\b|\b(?:school|guidance) counsel(?:l)?ors?\b|\bdepartment chair\b|\bheadteachers?\b|\bheadm(?:aster|istress)\b|\bschulleit\w*`,
  ],
  ['Procurement', r`\bcategory manag\w*|\bstrategic sourcing\b|\bit procurement\b`],
];

/** Tier 2: professions — the noun decides the function whatever qualifies it ("Marketing Professor"). */
const T2_PROFESSIONS: readonly Rule[] = [
  [
    'Healthcare',
    r`\bnurs(?:e|es|ing)\b|\b(?:rn|rns|lpn|lpns|cna|cnas)\b|\bphysicians?\b|\bdoctors?\b|\bsurgeons?\b|\bdentists?\b|\bhygienists?\b|\bpharmacists?\b|\btherapists?\b|\bphysiotherap\w*|\bparamedics?\b|\bemts?\b|\bmidwi(?:fe|ves)\b|\bradiolog\w*|\bradiographers?\b|\bsonographers?\b|\bpsychologists?\b|\bpsychiatr\w*|\bpsychotherap\w*|\boptometrists?\b|\bopticians?\b|\bveterinar\w*|\bcardiolog\w*|\boncolog\w*|\bpa?ediatric\w*|\ban(?:a)?esthe\w*|\bcaregivers?\b|\bcarers?\b|\bclinicians?\b|\bhospitalists?\b|\bchiropract\w*|\bdietitians?\b|\bnutritionists?\b|\bmedecins?\b|\binfirmi\w*|\bmedic[oa]s?\b|\benfermer\w*|\benfermeir\w*|\b(?:arzt|arztin|aerztin)\b|\bkrankenschwester\w*|\bkrankenpfleger\w*|\bpflege\w*|\bverpleegkundige\w*|\bchirurg\w*|\bzahnarzt\w*|\bapotheker\w*|\bfarmaceut\w*|\bpharmacien\w*|\bcno\b`,
  ],
  [
    'Education',
    r`\bteachers?\b|\bteaching\b|\bprofessors?\b|\bprofesseurs?\b|\bprofesor(?:a|es|as)?\b|\bprofessora\b|\blecturers?\b|\binstructors?\b|\btutors?\b|\beducators?\b|\bdeans?\b|\bfaculty\b|\blibrarians?\b|\benseignant\w*|\bmaestr[oa]s?\b|\bdocentes?\b|\binsegnant\w*|\blehrer\w*|\bdozent\w*|\bleraa?r\w*|\blerares\b|\bdocent\b|\bstudents?\b|\bstudente\b|\bestudiantes?\b|\betudiant\w*|\bpupils?\b`,
  ],
  [
    'Legal',
    r`\blawyers?\b|\battorneys?\b|\bsolicitors?\b|\bbarristers?\b|\bparalegals?\b|\bcounsel\b|\bnotar\w*|\bjurist\w*|\babogad[oa]s?\b|\bavocat\w*|\badvogad[oa]s?\b|\bavvocat[oa]\b|\badvocaat\b|\brechtsanw\w*|\bjustiziar\w*|\bsyndikus\w*`,
  ],
  [
    'Finance',
    r`\baccountants?\b|\bbookkeep\w*|\b(?:controller|comptroller)(?<!\btraffic controller)s?\b|\bauditors?\b|\bactuar\w*|\bunderwriters?\b|\btreasurers?\b|\bcpas?\b|\bbankers?\b|\bcomptables?\b|\bcontador\w*|\bcontabil\w*|\bcontable\w*|buchhalt\w*|\bboekhoud\w*|\bwirtschaftspr(?:u|ue)f\w*|\bsteuerberater\w*`,
  ],
  ['Design', r`\bdesigners?\b|\billustrators?\b|\banimators?\b|\bdisenador\w*|gestalter\w*|\bontwerpers?\b|\bvormgevers?\b|\bgrafiker\w*|\bgraphiste\w*`],
  [
    'Engineering',
    r`\bdevelopers?\b|\bprogrammers?\b|\bprogramador\w*|\bprogrammeu\w*|\bdesarrollador\w*|\bdesenvolvedor\w*|\bdeveloppeu\w*|\bsviluppator\w*|\bontwikkelaars?\b|\b(?:software|web|anwendungs|app|frontend|backend|fullstack)?entwickl(?:er|erin)\b`,
  ],
  ['Procurement', r`\bbuyers?\b|\bpurchasers?\b|\bacheteu\w*|\bcomprador\w*|\beink(?:a|ae)ufer\w*|\binkopers?\b`],
  ['Marketing', r`\bcopywrit\w*|\bmarketeers?\b|\bmarketers?\b`],
  [
    'Research',
    r`\bscientists?\b|\bresearchers?\b|\bchemists?\b|\bbiologists?\b|\bphysicists?\b|\bpostdoc\w*|\bchercheu\w*|\binvestigador\w*|\bpesquisador\w*|\bricercator\w*|\bonderzoekers?\b|\bwissenschaftler\w*`,
  ],
];

/** Tier 3: business functions. */
const T3_BUSINESS: readonly Rule[] = [
  [
    'Sales',
    r`\bsales(?!force)\w*|vertrieb\w*|verkauf\w*|\bverko(?:op|per)\w*|\bventas?\b|\bvendas\b|\bvendite\b|\bventes?\b|\bvendeu\w*|\bvendedor\w*|\bvenditor\w*|\baccount (?:executive|exec|manager|management|director|representative|rep|lead|coordinator|specialist|strategist|development)s?\b|\bacct (?:exec|executive|mgr|manager)\b|\baccountmanag\w*|\bkey accounts?\b|\bexecutiv[oa] de (?:cuentas|contas)\b|\bejecutiv[oa] de (?:cuentas|ventas)\b|\bbusiness development\b|\bbiz ?dev\b|\b(?:bdr|bdrs|sdr|sdrs|ae|aes|bd)\b|\brevenue\b|\brev ?ops\b|\bchannel\b|\bpartnerships?\b|\balliances?\b|\bpartner (?:manager|management|sales|account|development|success)\b|\bclient partner\b|\bpre ?sales\b|\bsolutions? (?:engineer|consultant)\w*|\bdeal desk\b|\brelationship manag\w*|\bterritory\b|\bcommerciaux\b|aussendienst\w*|innendienst\w*|\bgesch(?:a|ae)ftsentwicklung\b`,
  ],
  [
    'Marketing',
    r`\bmarketing\w*|\bmktg\b|\bmkt\b|\bmercadeo\b|\bmercadotecnia\b|\bbrand\w*|\bgrowth\b|\bdemand gen\w*|\blead gen\w*|\b(?:seo|sem|ppc|abm)\b|\bcontent\b|\bcommunications?\b|\bcomms\b|kommunikation\w*|\bcomunica(?:cion|ciones|cao|zione)\b|\bcommunicatie\b|\bpr\b|\bpublic relations\b|\bpress (?:officer|relations)\b|\bpressesprecher\w*|\brelations? (?:presse|publiques)\b|\bmedia\b|\badvertising\b|\bwerbung\b|\bpublicite\b|\bpublicidad\b|\bpubblicita\b|\bcampaigns?\b|\bwebmaster\b|\binfluencer\w*`,
  ],
  [
    'Human Resources',
    r`\b(?:hr|hrd|hrm|hris|rh|grh|rrhh|drh)\b|\bhuman resources?\b|\bpeople\b|\btalent\b|\bpersonnel\b|\bpersoneel\w*|\bressources humaines\b|\brecursos humanos\b|\brisorse umane\b|\bhuman capital\b|\bpersonal(?:leiter\w*|leitung|referent\w*|wesen|entwicklung|abteilung|sachbearbeiter\w*|chef\w*|management|manager\w*|planung|betreuer\w*|disponent\w*|berater\w*|bereich\w*)\b|\b(?:leiter|leiterin|leitung|head|referent|referentin|sachbearbeiter|sachbearbeiterin|mitarbeiter|mitarbeiterin|bereich|abteilung|bereichsleiter|bereichsleiterin) personal\b|\bcompensation\b|\bbenefits\b|\btotal rewards\b|\bemployee (?:relations|experience|engagement)\b|\bdiversity\b|\bdei\b|\binclusion\b|\bculture\b|^personal$`,
  ],
  [
    'Finance',
    r`\bfinanc\w*|\bfinanz\w*|\baccounting\b|\baccounts\b|\btreasury\b|\btresorerie\b|\btesoreria\b|\btax\b|\btaxes\b|\btaxation\b|\baudit\w*|\bbilling\b|\binvoic\w*|\bcollections\b|\bcredit\b|\bloans?\b|\bmortgages?\b|\binvestments?\b|\binvestor\b|\bbanking\b|\bwealth\b|\bportfolio\b|\basset management\b|\bprivate equity\b|\bventure capital\b|\bcontrolling\b|\brechnungswesen\b|\bcomptabilit\w*|\bcontabilidad\w*|\bcontabilita\b|\bboekhouding\b|\brisk\b|\bsteuer(?:abteilung|recht|wesen)?\b|\bamministra(?:zione|tiv[oa])\b|\bkaufm(?:a|ae)nnisch\w*`,
  ],
  [
    'Legal',
    r`\blegal\w*|\blaw\b|\bcompliance\b|\bprivacy\b|\bregulatory\b|\bcontracts? (?:manager|administrator|specialist|analyst|negotiator|management)s?\b|\bjuridi\w*|\brecht\b|\brechtsabteilung\b`,
  ],
  [
    'Procurement',
    r`\bprocurement\b|\bpurchas\w*|\bsourcing\b|\bsuppliers?\b|\bsupply management\b|\bvendor (?:management|manager|relations)\b|eink(?:a|ae)uf\w*|\bbeschaffung\w*|\bachats?\b|\bapprovisionnement\b|\bcompras\b|\baprovisionamiento\b|\bacquisti\b|\binkoop\w*`,
  ],
  [
    'Customer Success',
    r`\bsupport (?:specialist|agent|representative|rep|analyst|associate|manager|lead|team|consultant|technician)s?\b|\bonboarding\b|\bimplementation\b|\bcx\b|\bclientele\b`,
  ],
  [
    'Product',
    r`\bcpo\b|\bproducts?\b|\bproductmanag\w*|\bproductowner\w*|\bprodukt(?!ion)\w*|\bproduit\w*|\bproducto\w*|\bproduto\w*|\bprodott\w*|\b(?:pm|pms|gpm)\b`,
  ],
  [
    'Design',
    r`\bdesign\b|\b(?:ux|ui)\b|\buser (?:experience|interface)\b|\bgraphic\w*|\bgrafic[oa]\b|\bcreative\b|\bkreativ\w*|\bcreatif\w*|\bcreativo\b|\bvisual\b`,
  ],
];

/** Tier 4: technical and domain functions, which a business word beats ("Sales Engineer"). */
const T4_DOMAIN: readonly Rule[] = [
  ['Information Security', r`\bsecurity\b(?<!\bsocial security)|\bsicherheit\b|\bsecurite\b|\bseguridad\b|\bsicurezza\b|\bbeveiliging\b`],
  [
    'Data & Analytics',
    r`\bdata\b|\bdatos\b|\bdados\b|\bdati\b|\bdonnees\b|\bdaten\w*|\banalytics?\b|\banalytique\b|\bmachine learning\b|\b(?:ml|ai)\b|\bartificial intelligence\b|\bintelligence artificielle\b|\bk(?:u|ue)nstliche intelligenz\b|\bstatistic\w*|\bquantitative\b|\bquant\b|\binsights\b|\betl\b`,
  ],
  [
    'IT',
    r`\b(?:it|ict|mis|edv|ti|tic|sap|erp|itil)\b|\binformatique\b|\binformatica\b|\binformatik\w*|\binformatie\w*|\bsistemas\b|\bsistemi\b|\bdatabases?\b`,
  ],
  [
    'Engineering',
    r`\bengineer\w*|\b(?:eng|engr|devs?)\b|\bingenier\w*|\bingenieur\w*|\bingegner\w*|\bengenheir\w*|\barchitect\w*|\bfront ?end\b|\bback ?end\b|\bfull ?stack\b|\bfirmware\b|\bembedded\b|\btesters?\b|\btesting\b|\bkonstrukt\w*|entwicklung\b`,
  ],
  [
    'Research',
    r`\bresearch\w*|\bscientific\b|\blaborator\w*|\blabs?\b|\bforsch\w*|\bwissenschaft\w*|\brecherche\b|\binvestigacion\b|\bpesquisa\b|\bricerca\b|\bonderzoek\w*|\bphd\b|\bph d\b|\bdoctoral\b|\bpostdoctoral\b`,
  ],
];

/** Tier 5: weak hints, used only when nothing stronger is named. */
const T5_WEAK: readonly Rule[] = [
  ['Marketing', r`\be ?commerce\b|\bcommunity\b|\bevents?\b|\bevenement\w*|\beventos?\b|\bveranstaltung\w*`],
  ['Sales', r`\bcommercial\b|\bcomercial\b|\bcommerciale?s?\b|\bcommerce\b`],
  [
    'Operations',
    r`\bcoo\b|\boperations?\b|\boperating\b|\bops\b|\boperaciones\b|\boperacoes\b|\boperazioni\b|\bopera(?:tionnel|cional)\w*|\blogistic\w*|\blogistique\b|\blogistik\w*|\blogistica\b|\bsupply chain\b|\bwarehous\w*|\blager\w*|\bfulfil\w*|\binventory\b|\bmanufacturing\b|\bproduction\b|\bproduktion\w*|\bproduccion\b|\bproducao\b|\bproduzione\b|\bproductie\b|\bfertigung\w*|\bplants?\b|\bfacilit\w*|\bmaintenance\b|\binstandhaltung\w*|\bquality\b|\bqualit\w*|\bcalidad\b|\bqualidade\b|\bqc\b|\blean\b|\bsix sigma\b|\bcontinuous improvement\b|\bprocess (?:improvement|excellence)\b|\bfleet\b|\bdispatch\w*|\bshipping\b|\btransport\w*|\badmin\b|\badministration\b|\badministrative\b|\badministrativ[oa]\b|\boffice\b|\bverwaltung\w*|\bprojects?\b|\bprojekt\w*|\bprojets?\b|\bproyectos?\b|\bprojetos?\b|\bprogett\w*|\bprogram(?:me)?s?\b|\bpmo\b|\bbetrieb\w*`,
  ],
  [
    'Engineering',
    r`\btechnical\b|\btechnolog\w*|\btecnolog\w*|\btech\b|\btechnique\b|\btecnic[oa]\b|\btechnisch\w*|\btechnik\w*|\bsoftware\b|\bhardware\b|\bmobile\b|\bios\b|\bandroid\b|\bmechanical\b|\belectrical\b|\bcivil\b|\belectronics?\b|\bcloud\b`,
  ],
  ['IT', r`\bnetwork\w*|\bnetzwerk\w*|\binfrastruct\w*|\binfrastruktur\w*|\bsystems?\b|\bsalesforce\b|\bservicenow\b|\btelecom\w*`],
  [
    'Healthcare',
    r`\bmedical\b|\bmedizin\w*|\bclinical\b|\bclinics?\b|\bklinik\w*|\bclinique\b|\bhealth\w*|\bhospital\w*|\bkrankenhaus\b|\bpatients?\b|\bcare\b|\bsante\b|\bsalud\b|\bsaude\b|\bsanitari[oa]\b|\bgesundheit\w*|\bpharma\w*`,
  ],
  [
    'Education',
    r`\beducation\w*|\beducacion\b|\beducacao\b|\beducazione\b|\bbildung\b|\bschools?\b|\bschule\w*|\becole\b|\bescuela\b|\buniversit\w*|\bcollege\b|\bacadem\w*|\bcurriculum\b|\bkindergarten\b|\bpreschool\b|\bcampus\b|\be ?learning\b`,
  ],
  ['Human Resources', r`\btraining\b|\btrainers?\b|\blearning\b`],
  ['Data & Analytics', r`\banalysts?\b|\banalista\w*|\banalyste\w*`],
  ['Customer Success', r`\bsupport\b|\bsoporte\b|\bsuporte\b|\bsupporto\b|\bcustomers?\b|\bhelpline\b`],
  ['Legal', r`\bcontracts?\b`],
  ['Research', r`\bsciences?\b`],
];

/** Tier 6: generic executive words: the general manager of a company with no function named. */
const T6_EXECUTIVE: readonly Rule[] = [
  [
    'Executive',
    any(
      FOUNDER,
      OWNER,
      OWNER_LOCAL,
      FIRM_PARTNER,
      BARE_PRINCIPAL,
      PRESIDENT,
      BOARD,
      MANAGING_TOP,
      r`\bgeneral manag\w*|\bgms?\b|\bgeneral management\b|\bentrepreneur\w*|\bself employed\b|\bselbst(?:st)?andig\w*|\bautonom[oa]\b`,
      r`\bchief of staff\b|\bstrateg\w*|\bc level\b|\bc suite\b|\b(?:cxo|cco|cso|cao|cbo)s?\b|\bexecutive (?:office|leadership|team|committee)\b|\bleadership team\b|\bmanagement board\b`,
    ),
  ],
];

interface CompiledTier {
  readonly re: RegExp;
  readonly fns: readonly KnownFunction[];
}

/**
 * One alternation per tier with one capturing group per rule, so a single scan finds the leftmost
 * match and the group index names the function. Rule sources must not capture themselves, or the
 * group numbering would shift: that is checked here, at load time, rather than discovered in production.
 */
function compileTier(rules: readonly Rule[]): CompiledTier {
  for (const [fn, src] of rules) {
    if (/(?<!\\)\((?!\?)/.test(src)) throw new Error(`title-classifier: capturing group in rule for ${fn}: ${src}`);
  }
  return { re: new RegExp(rules.map(([, src]) => `(${src})`).join('|')), fns: rules.map(([fn]) => fn) };
}

const FUNCTION_TIERS: readonly CompiledTier[] = [T1_COMPOUNDS, T2_PROFESSIONS, T3_BUSINESS, T4_DOMAIN, T5_WEAK, T6_EXECUTIVE].map(compileTier);

function detectFunction(t: string): KnownFunction | '' {
  for (const tier of FUNCTION_TIERS) {
    const m = tier.re.exec(t);
    if (m === null) continue;
    for (let i = 1; i < m.length; i++) if (m[i] !== undefined) return tier.fns[i - 1];
  }
  return '';
}

// ---------------------------------------------------------------------------------------------------
// Special readings applied before levels and functions

/** Administrative support: Staff / Operations, whatever senior words it mentions. */
const ADMIN_SUPPORT_RE = new RegExp(
  any(
    r`\b(?:executive|exec|personal|administrative|admin|office|virtual|team|management|group) (?:assistant|assistent\w*|secretary)\b(?! manager)`,
    r`\bassistant(?:e)? (?:to|of|for)\b`,
    r`\b(?:${C_SUITE_ACRONYMS}|president|chairman|founder|director|directors|vp|md|gm|managing director|manager|owner|partner|principal)(?: s|s)? assistant\b`,
    r`\bassistant(?:e)? (?:de|du|de la) direction\b|\bassistant(?:e)? administrati\w*`,
    r`\basistente (?:de )?(?:direccion|gerencia|ejecutiv[oa]|administrativ[oa])\b|\bauxiliar administrativ[oa]\b`,
    r`\bassistente (?:di )?direzione\b|\bassistente amministrativ[oa]\b`,
    r`\bassisten(?:t|tin|z) (?:der |des )?(?:gesch(?:a|ae)ftsf\w*|gesch(?:a|ae)ftsleit\w*|vorstand\w*|direktion|bereichsleitung)`,
    r`(?:vorstands|gesch(?:a|ae)ftsf(?:u|ue)hrungs|chef)assist\w*`,
    r`^(?:(?:senior|sr|junior|jr|executive) )?(?:ea|pa|va)s?\b|\b(?:ea|pa|va) to\b`, // not "Software Engineer, EA"
    r`\breceptionist\w*|\brecepcionista\w*|\brezeption\w*|\bempfangs\w*`,
    r`\bsecretar(?<!\b(?:company|corporate|general) secretar)(?:y|ies|ia|io|iat)\b|\bsecretaire\w*|\bsegretari[oa]\b|sekret(?:a|ae)r\w*|secretaresse\w*`,
  ),
);

/** "Advisor to the Board", "Chief of Staff to the CEO": the person named is not the holder. */
const REPORTS_TO_RE = new RegExp(
  r`\b(?:to|for|office of)(?: the)? (?:${C_SUITE_ACRONYMS}|md|gm|president|chairman|chairwoman|chair|founders?|owners?|board|directors?|vp|svp|evp|vice president|managing director|general manager|executive team|executives|c suite|leadership|partners?|principal|chief \w+(?: \w+)? officer|chief executive|management)\b`,
  'g',
);

/** No current role. */
const NO_CURRENT_ROLE_RE =
  /^(?:former|formerly|ex|previously)\b|\b(?:retired|retiree|pensioniert\w*|retraite\w*|jubilad[oa]|aposentad[oa]|pensionad[oa]|unemployed|arbeitslos)\b/;

/** A "Principal" in a school is the head of the school (Director, Education), not a firm's owner. */
const SCHOOL_CONTEXT_RE =
  /\b(?:schools?|elementary|primary|secondary|high|middle|academy|kindergarten|preschool|lycee|colegio|escuela|schule|grundschule|gymnasium|montessori|isd|usd|k ?12|charter)\b|\b(?:assistant|vice|deputy) principal\b/;
const SCHOOL_PRINCIPAL_RE = /\bprincipal\b(?= *(?:$|,|and\b|at\b|of\b|in\b))/g;

// ---------------------------------------------------------------------------------------------------
// API

function detectLevel(t: string): Level | '' {
  if (C_LEVEL_RE.test(t)) return 'C-Level';
  const leiter = leiterLevel(t);
  if (VP_RE.test(t)) return 'VP';
  if (leiter === 'Director' || DIRECTOR_RE.test(t)) return 'Director';
  if (leiter === 'Manager' || MANAGER_RE.test(t)) return 'Manager';
  return '';
}

/**
 * Classify a free-text job title. Blank or unrecognisable titles give `{ titleLevel: '', titleFunction: '' }`;
 * a recognised level without a recognisable function gives `titleFunction: 'Other'`.
 */
export function classifyTitle(title: string): TitleClassification {
  if (typeof title !== 'string') return blank(); // rows from CSV/JSON may carry null at runtime
  return { ...classified(title) };
}

/**
 * Classifications of the titles seen so far: every enrichment answer classifies a title (the catalog
 * person's, or the lead's), titles repeat across leads, and the ~40 regular expressions behind one
 * classification cost ~2.5 µs CPU per call (~10 µs of a firmographics request in the server profile);
 * a hit costs a Map lookup and a copy (callers get their own object, as before). Bounded
 * (server/cache/bounded-cache.ts).
 */
const classified = boundedMemo(classifyUncached, 10_000);

function classifyUncached(title: string): TitleClassification {
  const norm = normalize(title);
  if (norm === '' || NO_CURRENT_ROLE_RE.test(norm)) return blank();
  if (ADMIN_SUPPORT_RE.test(norm)) return { titleLevel: 'Staff', titleFunction: 'Operations' };

  let t = norm.replace(REPORTS_TO_RE, ' , ');
  if (t.includes('principal') && SCHOOL_CONTEXT_RE.test(t)) t = t.replace(SCHOOL_PRINCIPAL_RE, 'headteacher');

  const fn = detectFunction(t);
  const level = detectLevel(t) || (fn !== '' || STAFF_RE.test(t) ? 'Staff' : '');
  if (level === '') return blank();
  return { titleLevel: level, titleFunction: fn || 'Other' };
}
