/**
 * The plural controller-gen gives a kind, so a ported API keeps its CRD name: controller-gen
 * v0.21.0 takes `strings.ToLower(flect.Pluralize(kind))`, with gobuffalo/flect v1.0.3's rules.
 * This is those rules, as data and a small algorithm: the last word of the kind (split at its
 * capitals and known acronyms) decides; a dictionary of irregular words wins, then the first
 * matching suffix rule, then `s`. test/conformance/plurals.test.ts compares it with controller-gen.
 */

interface Word {
  singular: string;
  plural?: string;
  alternative?: string;
  /** The plural does not lead back to this singular. */
  unidirectional?: boolean;
  uncountable?: boolean;
  /** Only the whole word, never as a suffix of a compound. */
  exact?: boolean;
}

/** Irregular English words, in flect's order (the order decides which suffix rule is tried first). */
const DICTIONARY: readonly Word[] = [
  { singular: 'aircraft', plural: 'aircraft' },
  { singular: 'beef', plural: 'beef', alternative: 'beefs' },
  { singular: 'bison', plural: 'bison' },
  { singular: 'blues', plural: 'blues', unidirectional: true },
  { singular: 'chassis', plural: 'chassis' },
  { singular: 'deer', plural: 'deer' },
  { singular: 'fish', plural: 'fish', alternative: 'fishes' },
  { singular: 'moose', plural: 'moose' },
  { singular: 'police', plural: 'police' },
  { singular: 'salmon', plural: 'salmon', alternative: 'salmons' },
  { singular: 'series', plural: 'series' },
  { singular: 'sheep', plural: 'sheep' },
  { singular: 'shrimp', plural: 'shrimp', alternative: 'shrimps' },
  { singular: 'species', plural: 'species' },
  { singular: 'swine', plural: 'swine', alternative: 'swines' },
  { singular: 'trout', plural: 'trout', alternative: 'trouts' },
  { singular: 'tuna', plural: 'tuna', alternative: 'tunas' },
  { singular: 'you', plural: 'you' },
  { singular: 'child', plural: 'children' },
  { singular: 'ox', plural: 'oxen', exact: true },
  { singular: 'foot', plural: 'feet' },
  { singular: 'goose', plural: 'geese' },
  { singular: 'man', plural: 'men' },
  { singular: 'human', plural: 'humans' },
  { singular: 'louse', plural: 'lice', exact: true },
  { singular: 'mouse', plural: 'mice' },
  { singular: 'tooth', plural: 'teeth' },
  { singular: 'woman', plural: 'women' },
  { singular: 'die', plural: 'dice', exact: true },
  { singular: 'person', plural: 'people' },
  { singular: 'adieu', plural: 'adieux', alternative: 'adieus' },
  { singular: 'fabliau', plural: 'fabliaux' },
  { singular: 'bureau', plural: 'bureaus', alternative: 'bureaux' },
  { singular: 'criterion', plural: 'criteria' },
  { singular: 'ganglion', plural: 'ganglia', alternative: 'ganglions' },
  { singular: 'lexicon', plural: 'lexica', alternative: 'lexicons' },
  { singular: 'mitochondrion', plural: 'mitochondria', alternative: 'mitochondrions' },
  { singular: 'noumenon', plural: 'noumena' },
  { singular: 'phenomenon', plural: 'phenomena' },
  { singular: 'taxon', plural: 'taxa' },
  { singular: 'media', plural: 'media' },
  { singular: 'medium', plural: 'media', alternative: 'mediums', unidirectional: true },
  { singular: 'stadium', plural: 'stadiums', alternative: 'stadia' },
  { singular: 'aquarium', plural: 'aquaria', alternative: 'aquariums' },
  { singular: 'auditorium', plural: 'auditoria', alternative: 'auditoriums' },
  { singular: 'symposium', plural: 'symposia', alternative: 'symposiums' },
  { singular: 'curriculum', plural: 'curriculums', alternative: 'curricula' },
  { singular: 'quota', plural: 'quotas' },
  { singular: 'alumnus', plural: 'alumni', alternative: 'alumnuses' },
  { singular: 'bacillus', plural: 'bacilli' },
  { singular: 'cactus', plural: 'cacti', alternative: 'cactuses' },
  { singular: 'coccus', plural: 'cocci' },
  { singular: 'focus', plural: 'foci', alternative: 'focuses' },
  { singular: 'locus', plural: 'loci', alternative: 'locuses' },
  { singular: 'nucleus', plural: 'nuclei', alternative: 'nucleuses' },
  { singular: 'octopus', plural: 'octupuses', alternative: 'octopi' },
  { singular: 'radius', plural: 'radii', alternative: 'radiuses' },
  { singular: 'syllabus', plural: 'syllabi' },
  { singular: 'corpus', plural: 'corpora', alternative: 'corpuses' },
  { singular: 'genus', plural: 'genera' },
  { singular: 'alumna', plural: 'alumnae' },
  { singular: 'vertebra', plural: 'vertebrae' },
  { singular: 'differentia', plural: 'differentiae' },
  { singular: 'minutia', plural: 'minutiae' },
  { singular: 'vita', plural: 'vitae' },
  { singular: 'larva', plural: 'larvae' },
  { singular: 'postcava', plural: 'postcavae' },
  { singular: 'praecava', plural: 'praecavae' },
  { singular: 'uva', plural: 'uvae' },
  { singular: 'apex', plural: 'apices', alternative: 'apexes' },
  { singular: 'codex', plural: 'codices', alternative: 'codexes' },
  { singular: 'index', plural: 'indices', alternative: 'indexes' },
  { singular: 'latex', plural: 'latices', alternative: 'latexes' },
  { singular: 'vertex', plural: 'vertices', alternative: 'vertexes' },
  { singular: 'vortex', plural: 'vortices', alternative: 'vortexes' },
  { singular: 'appendix', plural: 'appendices', alternative: 'appendixes' },
  { singular: 'radix', plural: 'radices', alternative: 'radixes' },
  { singular: 'helix', plural: 'helices', alternative: 'helixes' },
  { singular: 'axis', plural: 'axes', exact: true },
  { singular: 'crisis', plural: 'crises' },
  { singular: 'ellipsis', plural: 'ellipses', unidirectional: true },
  { singular: 'genesis', plural: 'geneses' },
  { singular: 'oasis', plural: 'oases' },
  { singular: 'thesis', plural: 'theses' },
  { singular: 'testis', plural: 'testes' },
  { singular: 'base', plural: 'bases' },
  { singular: 'basis', plural: 'bases', unidirectional: true },
  { singular: 'alias', plural: 'aliases', exact: true },
  { singular: 'vedalia', plural: 'vedalias' },
  { singular: 'use', plural: 'uses', exact: true },
  { singular: 'abuse', plural: 'abuses' },
  { singular: 'cause', plural: 'causes' },
  { singular: 'clause', plural: 'clauses' },
  { singular: 'cruse', plural: 'cruses' },
  { singular: 'excuse', plural: 'excuses' },
  { singular: 'fuse', plural: 'fuses' },
  { singular: 'house', plural: 'houses' },
  { singular: 'misuse', plural: 'misuses' },
  { singular: 'muse', plural: 'muses' },
  { singular: 'pause', plural: 'pauses' },
  { singular: 'ache', plural: 'aches' },
  { singular: 'topaz', plural: 'topazes' },
  { singular: 'buffalo', plural: 'buffaloes', alternative: 'buffalos' },
  { singular: 'potato', plural: 'potatoes' },
  { singular: 'tomato', plural: 'tomatoes' },
  { singular: 'equipment', uncountable: true },
  { singular: 'information', uncountable: true },
  { singular: 'jeans', uncountable: true },
  { singular: 'money', uncountable: true },
  { singular: 'news', uncountable: true },
  { singular: 'rice', uncountable: true },
  { singular: 'dwarf', plural: 'dwarfs', alternative: 'dwarves' },
  { singular: 'hoof', plural: 'hoofs', alternative: 'hooves' },
  { singular: 'thief', plural: 'thieves' },
  { singular: 'chive', plural: 'chives' },
  { singular: 'hive', plural: 'hives' },
  { singular: 'move', plural: 'moves' },
  { singular: 'movie', plural: 'movies' },
  { singular: 'cookie', plural: 'cookies' },
  { singular: 'pretorium', plural: 'pretoriums' },
  { singular: 'agenda', plural: 'agendas' },
  { singular: 'formula', plural: 'formulas', alternative: 'formulae' },
  { singular: 'shoe', plural: 'shoes' },
  { singular: 'toe', plural: 'toes', exact: true },
  { singular: 'graffiti', plural: 'graffiti' },
  { singular: 'ID', plural: 'IDs', exact: true },
];

/** Suffix rules, singular -> plural, highest priority first. */
const SUFFIXES: readonly (readonly [string, string])[] = [
  ['tive', 'tives'],
  ['eaf', 'eaves'],
  ['oaf', 'oaves'],
  ['afe', 'aves'],
  ['arf', 'arves'],
  ['rfe', 'rves'],
  ['rf', 'rves'],
  ['lf', 'lves'],
  ['fe', 'ves'],
  ['ay', 'ays'],
  ['ey', 'eys'],
  ['oy', 'oys'],
  ['quy', 'quies'],
  ['uy', 'uys'],
  ['y', 'ies'],
  ['eau', 'eaux'],
  ['bula', 'bulae'],
  ['dula', 'bulae'],
  ['lula', 'bulae'],
  ['nula', 'bulae'],
  ['vula', 'bulae'],
  ['hedron', 'hedra'],
  ['ium', 'ia'],
  ['seum', 'seums'],
  ['eum', 'ea'],
  ['oum', 'oa'],
  ['stracum', 'straca'],
  ['dum', 'da'],
  ['elum', 'ela'],
  ['ilum', 'ila'],
  ['olum', 'ola'],
  ['ulum', 'ula'],
  ['llum', 'lla'],
  ['ylum', 'yla'],
  ['imum', 'ima'],
  ['ernum', 'erna'],
  ['gnum', 'gna'],
  ['brum', 'bra'],
  ['crum', 'cra'],
  ['terum', 'tera'],
  ['serum', 'sera'],
  ['trum', 'tra'],
  ['antum', 'anta'],
  ['atum', 'ata'],
  ['entum', 'enta'],
  ['etum', 'eta'],
  ['itum', 'ita'],
  ['otum', 'ota'],
  ['utum', 'uta'],
  ['ctum', 'cta'],
  ['ovum', 'ova'],
  ['trix', 'trices'],
  ['iasis', 'iases'],
  ['mesis', 'meses'],
  ['kinesis', 'kineses'],
  ['resis', 'reses'],
  ['gnosis', 'gnoses'],
  ['opsis', 'opses'],
  ['ysis', 'yses'],
  ['ouse', 'ouses'],
  ['lause', 'lauses'],
  ['us', 'uses'],
  ['ch', 'ches'],
  ['io', 'ios'],
  ['sh', 'shes'],
  ['ss', 'sses'],
  ['ez', 'ezzes'],
  ['iz', 'izzes'],
  ['tz', 'tzes'],
  ['zz', 'zzes'],
  ['ano', 'anos'],
  ['lo', 'los'],
  ['to', 'tos'],
  ['oo', 'oos'],
  ['o', 'oes'],
  ['x', 'xes'],
  ['S', 'Ses'],
];

/** Words flect keeps whole (and upper-cased) when it splits a name into words. */
const ACRONYMS = new Set(
  (
    'OK UTF8 HTML JSON JWT ID UUID SQL ACK ACL ADSL AES ANSI API ARP ATM BGP BSS CCITT CHAP CIDR CIR CLI CPE CPU CRC CRT CSMA CMOS DCE DEC DES DHCP DNS DRAM DSL ' +
    'DSLAM DTE DMI EHA EIA EIGRP EOF ESS FCC FCS FDDI FTP GBIC gbps GEPOF HDLC HTTP HTTPS IANA ICMP IDF IDS IEEE IETF IMAP IP IPS ISDN ISP kbps LACP LAN LAPB LAPF ' +
    'LLC MAC Mbps MC MDF MIB MoCA MPLS MTU NAC NAT NBMA NIC NRZ NRZI NVRAM OSI OSPF OUI PAP PAT PC PIM PCM PDU POP3 POTS PPP PPTP PTT PVST RAM RARP RFC RIP RLL ROM ' +
    'RSTP RTP RCP SDLC SFD SFP SLARP SLIP SMTP SNA SNAP SNMP SOF SRAM SSH SSID STP SYN TDM TFTP TIA TOFU UDP URL URI USB UTP VC VLAN VLSM VPN W3C WAN WEP WiFi WPA WWW'
  ).split(' '),
);

const singleToPlural = new Map<string, string>();
const pluralToSingle = new Map<string, string>();
for (const word of DICTIONARY) {
  const plural = word.plural ?? word.singular;
  singleToPlural.set(word.singular, plural);
  if (!word.unidirectional) {
    pluralToSingle.set(plural, word.singular);
    if (word.alternative) pluralToSingle.set(word.alternative, word.singular);
  }
}

/**
 * Suffix rules in the order they are tried: compound-word rules from the dictionary (its last
 * word first), then the suffix list. Each rule's plural form comes first and is left unchanged, so
 * a word already plural by that rule is not pluralised twice.
 */
const RULES: readonly { suffix: string; replacement: string | undefined }[] = [
  ...DICTIONARY.filter((w) => !w.exact)
    .reverse()
    .flatMap((w) => [
      { suffix: w.plural ?? w.singular, replacement: undefined },
      { suffix: w.singular, replacement: w.plural ?? w.singular },
    ]),
  ...SUFFIXES.flatMap(([singular, plural]) => [
    { suffix: plural, replacement: undefined },
    { suffix: singular, replacement: plural },
  ]),
];

const isUpper = (c: string): boolean => c !== c.toLowerCase() && c === c.toUpperCase();
const isWordChar = (c: string): boolean => /[\p{L}\p{N}\p{P}`]/u.test(c);
const SEPARATORS = new Set(['_', ' ', ':', '-', '/']);

/** The words of a name as flect splits it: at a capital after a non-capital, after a known acronym, and at separators. */
function wordsOf(name: string): string[] {
  const trimmed = name.trim();
  if (trimmed === '') return [];
  if (ACRONYMS.has(trimmed.toUpperCase())) return [trimmed.toUpperCase()];
  const words: string[] = [];
  const push = (word: string): void => {
    let w = word.trim();
    for (const separator of SEPARATORS) {
      while (w.startsWith(separator)) w = w.slice(1);
      while (w.endsWith(separator)) w = w.slice(0, -1);
    }
    if (ACRONYMS.has(w.toUpperCase())) w = w.toUpperCase();
    if (w !== '') words.push(w);
  };
  let current = '';
  let previous = '';
  for (const c of trimmed) {
    if (SEPARATORS.has(c) || /\s/.test(c)) {
      push(current);
      current = c;
    } else if (isUpper(c) && !isUpper(previous)) {
      push(current);
      current = c;
    } else if (isUpper(c) && ACRONYMS.has(current.toUpperCase())) {
      push(current);
      current = c;
    } else if (isWordChar(c)) {
      current += c;
    } else {
      push(current);
      current = '';
    }
    previous = c;
  }
  push(current);
  return words;
}

function replaceSuffix(original: string, suffix: string, replacement: string): string {
  return (original.endsWith(suffix) ? original.slice(0, original.length - suffix.length) : original) + replacement;
}

/** flect's Pluralize: the plural of a name, judged by its last word. */
export function flectPluralize(name: string): string {
  const words = wordsOf(name);
  const last = words[words.length - 1] ?? '';
  if (last === '') return '';
  const whole = singleToPlural.get(name);
  if (whole !== undefined) return replaceSuffix(name, name, whole);
  if (pluralToSingle.has(name)) return name;
  const lower = last.toLowerCase();
  if (pluralToSingle.has(lower)) return name;
  const irregular = singleToPlural.get(lower);
  if (irregular !== undefined) {
    const capitalised = last.charAt(0).toUpperCase() + last.slice(1) === last;
    return replaceSuffix(name, last, capitalised ? irregular.charAt(0).toUpperCase() + irregular.slice(1) : irregular);
  }
  for (const rule of RULES) {
    if (!last.endsWith(rule.suffix)) continue;
    const replaced =
      rule.replacement === undefined ? last : last.slice(0, last.length - rule.suffix.length) + rule.replacement;
    return replaceSuffix(name, last, replaced);
  }
  if (lower.endsWith('s')) return name;
  return `${name}s`;
}

/** The lower-case plural controller-gen gives a kind: `strings.ToLower(flect.Pluralize(kind))`. */
export function pluralOfKind(kind: string): string {
  return flectPluralize(kind).toLowerCase();
}
