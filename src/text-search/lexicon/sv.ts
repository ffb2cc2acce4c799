import type { LanguageWords } from './concepts.ts';
import { foldText, wordsOf } from '../text-fold.ts';

/**
 * Swedish. Nouns in singular and plural, and the definite singular where queries use it (`hunden`, `bilen`); colour
 * adjectives in their three forms (`röd`, `rött`, `röda`: common, neuter, plural and definite), compounds too
 * (`mörkblå`, `ljusgrå`). Written with å, ä and ö; the fold drops the marks on both sides, so `rod` finds `röd`. Not yet
 * reviewed by a native speaker (docs/text-search.md).
 *
 * Left out because they are common English words, or another lexicon language's, with another meaning (an English
 * query of one would be read as Swedish): bad (bath), bank/bänk (bench), får (sheep; folds to "far", and is the verb
 * "gets"), folk (people), dam (lady), rock (coat), väst (vest; folds to "vast"), kappa (coat; the Kappa brand),
 * mobil (mobile phone; Indonesian "mobil" is a car), kon (the cow; Polish koń is a horse), björn (bear; a given name and
 * the Björn Borg brand; `björnar`, `isbjörn` are kept), koppar (cups; also copper), korv (sausage; `varmkorv` kept),
 * hästen (the horse: folds to "hasten"), teve (Portuguese "teve", had), mobilen (German "mobilen", mobile), mikro. Left out as
 * everyday Swedish words a seller writes (h197): `man` and `män` (a man, men; `man` is also "one", "som man ser på bilden":
 * a Swedish stop word, query-language.ts; English and Dutch `man` still read `män` typed so), `topp` (a top; also "topp
 * skick", top condition; `toppar` is kept), `linne` (a tank top; also linen, "byxor i linne"; `linnen` is kept). Forms that fold to another language's everyday word are the language's own only
 * (`ownLanguageOnly` in lexicon.ts): `röd` ("rod"), `röda` (Portuguese "roda", wheel), `blått` (German "Blatt"), `vita`
 * (Italian "vita"), `gula` (Indonesian "gula", sugar), `tåg` ("tag"), `barn` ("barn"), `slips` ("slips",
 * German briefs), `sax` ("sax"), `drake` (also dragon; "Drake"), `grå` (Polish "gra", game), `häst` (German "hast"),
 * `säng` ("sang", French "sang"), `bord` (French "bord de mer"), `bok` (Polish "bok", side), `ko` ("KO"; a
 * language code).
 */
const adjective = (common: string, neuter: string, plural: string): string[] => [common, neuter, plural];

const written: LanguageWords = {
  objects: {
    person: ['person', 'personer', 'människa', 'människor', 'kvinna', 'kvinnor', 'pojke', 'pojkar', 'flicka', 'flickor', 'tjej', 'tjejer', 'kille', 'killar', 'barn', 'porträtt', 'grupp', 'selfie'],
    bicycle: ['cykel', 'cyklar', 'cykeln', 'damcykel', 'herrcykel'],
    car: ['bil', 'bilar', 'bilen', 'personbil'],
    motorcycle: ['motorcykel', 'motorcyklar', 'moped', 'mopeder'],
    airplane: ['flygplan', 'flygplanet', 'jetplan', 'passagerarplan'],
    bus: ['buss', 'bussar', 'bussen'],
    train: ['tåg', 'tåget', 'lok', 'järnväg'],
    truck: ['lastbil', 'lastbilar', 'långtradare'],
    boat: ['båt', 'båtar', 'båten', 'fartyg', 'skepp', 'segelbåt', 'motorbåt'],
    'traffic light': ['trafikljus', 'trafiksignal', 'trafiksignaler'],
    'fire hydrant': ['brandpost', 'brandposter', 'hydrant'],
    'stop sign': ['stoppskylt', 'stoppskyltar'],
    'parking meter': ['parkeringsautomat', 'parkeringsautomater', 'parkeringsmätare'],
    bench: ['bänkar', 'parkbänk', 'sittbänk', 'trädgårdsbänk'],
    bird: ['fågel', 'fåglar', 'fågeln'],
    cat: ['katt', 'katter', 'katten', 'kattunge', 'kattungar', 'kisse'],
    dog: ['hund', 'hundar', 'hunden', 'valp', 'valpar', 'vovve'],
    horse: ['häst', 'hästar', 'ponny', 'föl'],
    sheep: ['lamm', 'fåren', 'tacka'],
    cow: ['ko', 'kor', 'kossa', 'kalv', 'tjur', 'nötkreatur'],
    elephant: ['elefant', 'elefanter'],
    bear: ['björnar', 'björnen', 'brunbjörn', 'isbjörn'],
    zebra: ['zebra', 'zebror'],
    giraffe: ['giraff', 'giraffer'],
    backpack: ['ryggsäck', 'ryggsäckar', 'ryggsäcken'],
    umbrella: ['paraply', 'paraplyer', 'parasoll'],
    handbag: ['handväska', 'handväskor', 'väska', 'väskor', 'axelväska', 'kuvertväska'],
    tie: ['slips', 'slipsar'],
    suitcase: ['resväska', 'resväskor', 'kappsäck', 'bagage'],
    frisbee: ['frisbee', 'frisbeer'],
    skis: ['skidor', 'skida', 'slalomskidor'],
    snowboard: ['snowboard', 'snowboards'],
    'sports ball': ['boll', 'bollar', 'fotboll'],
    kite: ['drake', 'drakar'],
    'baseball bat': ['basebollträ', 'slagträ'],
    'baseball glove': ['basebollhandske', 'basebollhandskar'],
    skateboard: ['skateboard', 'skateboards', 'rullbräda'],
    surfboard: ['surfbräda', 'surfbrädor'],
    'tennis racket': ['tennisracket', 'tennisracketar', 'racket'],
    bottle: ['flaska', 'flaskor', 'flaskan'],
    'wine glass': ['vinglas', 'glas'],
    cup: ['kopp', 'kopparna', 'mugg', 'muggar', 'kaffekopp'],
    fork: ['gaffel', 'gafflar'],
    knife: ['kniv', 'knivar'],
    spoon: ['sked', 'skedar'],
    bowl: ['skål', 'skålar'],
    banana: ['banan', 'bananer'],
    apple: ['äpple', 'äpplen'],
    sandwich: ['smörgås', 'smörgåsar', 'macka', 'mackor'],
    orange: ['apelsin', 'apelsiner'],
    broccoli: ['broccoli'],
    carrot: ['morot', 'morötter'],
    'hot dog': ['varmkorv', 'korv med bröd', 'hot dog', 'hotdog'],
    pizza: ['pizza', 'pizzor'],
    donut: ['munk', 'munkar', 'donut', 'donuts'],
    cake: ['tårta', 'tårtor', 'kaka', 'kakor'],
    chair: ['stol', 'stolar', 'fåtölj', 'fåtöljer', 'pall'],
    couch: ['soffa', 'soffor', 'soffan'],
    'potted plant': ['krukväxt', 'krukväxter', 'växt', 'växter', 'blomkruka', 'blomkrukor'],
    bed: ['säng', 'sängar', 'sängen'],
    'dining table': ['bord', 'matbord', 'köksbord', 'borden'],
    toilet: ['toalett', 'toaletter', 'wc', 'toastol'],
    tv: ['tv', 'tv-apparat', 'tv-apparater', 'tv-apparaten'],
    laptop: ['laptop', 'laptops', 'bärbar dator', 'bärbara datorer'],
    mouse: ['mus', 'datormus'],
    remote: ['fjärrkontroll', 'fjärrkontroller'],
    keyboard: ['tangentbord'],
    'cell phone': ['mobiltelefon', 'mobiltelefoner', 'telefon', 'telefoner', 'smartphone'],
    microwave: ['mikrovågsugn', 'mikrovågsugnar', 'mikrovågsugnen'],
    oven: ['ugn', 'ugnar', 'spis', 'spisar'],
    toaster: ['brödrost', 'brödrostar'],
    sink: ['diskho', 'handfat', 'diskbänk'],
    refrigerator: ['kylskåp', 'kyl'],
    book: ['bok', 'böcker', 'boken'],
    clock: ['klocka', 'klockor', 'väggklocka'],
    vase: ['vas', 'vaser'],
    scissors: ['sax', 'saxar'],
    'teddy bear': ['nallebjörn', 'nalle', 'nallar', 'gosedjur', 'teddybjörn'],
    'hair drier': ['hårtork', 'hårtorkar', 'fön'],
    toothbrush: ['tandborste', 'tandborstar'],
  },
  colors: {
    black: adjective('svart', 'svart', 'svarta'),
    charcoal: ['antracit', 'antracitgrå', 'koksgrå', 'kolgrå'],
    'dark grey': adjective('mörkgrå', 'mörkgrått', 'mörkgråa'),
    grey: adjective('grå', 'grått', 'gråa'),
    'light grey': [...adjective('ljusgrå', 'ljusgrått', 'ljusgråa'), 'silver', 'silvrig', 'silverfärgad'],
    white: adjective('vit', 'vitt', 'vita'),
    ivory: ['elfenben', 'elfenbensvit', 'benvit', 'naturvit', 'offwhite'],
    beige: ['beige', 'beigea', 'sandfärgad'],
    taupe: ['taupe', 'gråbeige'],
    camel: ['camel', 'kamelfärgad'],
    khaki: ['khaki', 'kaki'],
    brown: adjective('brun', 'brunt', 'bruna'),
    'dark brown': [...adjective('mörkbrun', 'mörkbrunt', 'mörkbruna'), 'chokladbrun'],
    rust: ['rost', 'rostbrun', 'roströd', 'rostfärgad', 'terrakotta'],
    red: adjective('röd', 'rött', 'röda'),
    burgundy: [...adjective('vinröd', 'vinrött', 'vinröda'), 'bordeaux', 'bordeauxröd'],
    coral: ['korall', 'korallröd', 'korallfärgad'],
    rose: ['gammelrosa', 'puderrosa', 'dammig rosa'],
    pink: ['rosa', 'skär'],
    'hot pink': ['cerise', 'knallrosa', 'fuchsia', 'neonrosa'],
    magenta: ['magenta'],
    peach: ['persika', 'persikofärgad', 'aprikos'],
    orange: ['orange', 'orangea', 'orangefärgad'],
    mustard: [...adjective('senapsgul', 'senapsgult', 'senapsgula'), 'senap', 'ockra'],
    gold: ['guld', 'guldig', 'guldiga', 'guldfärgad'],
    yellow: adjective('gul', 'gult', 'gula'),
    cream: ['gräddvit', 'krämvit', 'krämfärgad'],
    olive: ['oliv', ...adjective('olivgrön', 'olivgrönt', 'olivgröna')],
    'lime green': ['lime', ...adjective('limegrön', 'limegrönt', 'limegröna'), ...adjective('ljusgrön', 'ljusgrönt', 'ljusgröna')],
    green: adjective('grön', 'grönt', 'gröna'),
    'dark green': [...adjective('mörkgrön', 'mörkgrönt', 'mörkgröna'), 'flaskgrön', 'skogsgrön'],
    sage: ['salvia', 'salviagrön'],
    mint: ['mint', 'mintgrön', 'mintgröna'],
    teal: ['petrol', 'petrolblå', ...adjective('blågrön', 'blågrönt', 'blågröna')],
    turquoise: ['turkos', 'turkosa', 'aqua', 'cyan'],
    'light blue': [...adjective('ljusblå', 'ljusblått', 'ljusblåa'), 'babyblå'],
    'sky blue': adjective('himmelsblå', 'himmelsblått', 'himmelsblåa'),
    blue: adjective('blå', 'blått', 'blåa'),
    denim: ['denim', 'jeansblå'],
    'navy blue': ['marinblå', 'marinblått', 'marinblåa', ...adjective('mörkblå', 'mörkblått', 'mörkblåa')],
    purple: ['lila', 'violett', 'violetta', 'purpur'],
    lavender: ['lavendel', 'lavendelblå', 'syrenlila', 'ljuslila'],
    plum: ['plommon', 'plommonfärgad', 'aubergine'],
    mauve: ['mauve', 'gammellila'],
  },
  items: {
    'upper body': ['skjorta', 'skjortor', 't-shirt', 't-shirts', 'tröja', 'tröjor', 'blus', 'blusar', 'linnen', 'toppar', 'linnetopp', 'spetstopp', 'jacka', 'jackor', 'kavaj', 'kappor', 'hoodie', 'huvtröja', 'luvtröja', 'munkjacka', 'kofta', 'koftor', 'cardigan', 'sweatshirt', 'tischa'],
    'lower body': ['byxor', 'byxa', 'jeans', 'kjol', 'kjolar', 'shorts', 'leggings', 'chinos'],
    'full body': ['klänning', 'klänningar', 'jumpsuit', 'overall', 'byxdress'],
    footwear: ['sko', 'skor', 'sneakers', 'gympaskor', 'stövlar', 'stövel', 'kängor', 'känga', 'sandaler', 'sandal', 'klackskor', 'pumps', 'tofflor'],
  },
  people: {
    face: ['ansikte', 'ansikten', 'ansiktet'],
  },
};

/** Forms that fold to one (`män` and `man`, `rött` beside itself) are kept once, as the lexicon test asks. */
const once = (forms: readonly string[]): string[] => {
  const seen = new Set<string>();
  const key = (f: string) => wordsOf(foldText(f)).join(' ');
  return forms.filter((f) => !seen.has(key(f)) && seen.add(key(f)));
};
const each = <K extends string>(m: Readonly<Record<K, readonly string[]>>): Record<K, string[]> =>
  Object.fromEntries(Object.entries(m).map(([k, v]) => [k, once(v as readonly string[])])) as Record<K, string[]>;

export const sv: LanguageWords = { objects: each(written.objects), colors: each(written.colors), items: each(written.items), people: each(written.people) };
