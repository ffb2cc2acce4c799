import type { LanguageWords } from './concepts.ts';
import { foldText, wordsOf } from '../text-fold.ts';

/**
 * Polish. Nouns in the nominative singular and plural and the cases queries use: the genitive ("zdjęcie kota", "bez
 * kota"), the accusative of feminine nouns ("czerwoną torebkę") and the instrumental ("z psem"), and the diminutives
 * shops use (`piesek`, `kotek`, `sukienka`). Colour adjectives in their gender, number and case forms (`czerwony
 * czerwona czerwone czerwonego czerwoną czerwonej czerwonym czerwonych czerwonymi`), the colour nouns (`czerwień`,
 * `róż`, `beż`) and the compounds (`ciemnoniebieski`, `jasnoszary`). Written with Polish letters; the fold takes the
 * accents and ł off on both sides, so `zolty` finds `żółty`. Not yet reviewed by a native speaker (docs/text-search.md).
 *
 * Left out because they are common English words, or another lexicon language's, with another meaning: psa (the dog's:
 * PSA grades cards, "PSA 10 Charizard"), but (shoe; the plural `buty` is kept), motor (motorcycle), łódź and łodzi (boat; also the city Łódź), granat (navy; also a grenade and
 * a pomegranate; `granatowy` is kept), beż (beige: folds to `bez`, "without", a stop word:
 * "sukienka bez rękawów"; `beżowy` is kept), złotych (gold; the currency's "100 złotych"), pilota (the remote's; Italian
 * "pilota"), golf (a turtleneck; the sport), tir (a lorry; French "tir"), krem (cream;
 * also the cosmetic: `kremowy` is kept). Forms that fold to another language's everyday word are the
 * language's own only (`ownLanguageOnly` in lexicon.ts): `pies` (English "pies"), `psy` (Yu-Gi-Oh!'s "PSY-Frame"), `pilot` (the
 * remote; English "pilot"), `miś` ("mis", Spanish "my"), `nóż` (Portuguese "noz", walnut). `stół` (table) folds to `stol`, a chair in Swedish: the query's language decides.
 */

/** A colour adjective in its forms: hard stems (`czerwony`) and soft k/g stems (`niebieski`). */
function adjective(masculine: string): string[] {
  if (masculine.endsWith('y')) {
    const stem = masculine.slice(0, -1);
    return ['y', 'a', 'e', 'ego', 'ą', 'ej', 'ym', 'ych', 'ymi'].map((e) => stem + e);
  }
  const stem = masculine.slice(0, -1);
  return ['i', 'a', 'ie', 'iego', 'ą', 'iej', 'im', 'ich', 'imi'].map((e) => stem + e);
}
const adjectives = (...words: string[]): string[] => words.flatMap(adjective);

const written: LanguageWords = {
  objects: {
    person: ['osoba', 'osoby', 'osób', 'ludzie', 'ludzi', 'człowiek', 'mężczyzna', 'mężczyźni', 'mężczyzny', 'kobieta', 'kobiety', 'kobiet', 'chłopiec', 'chłopcy', 'chłopak', 'dziewczyna', 'dziewczyny', 'dziewczynka', 'dziecko', 'dzieci', 'portret', 'grupa', 'selfie'],
    bicycle: ['rower', 'rowery', 'roweru', 'rowerem', 'rowerek'],
    car: ['samochód', 'samochody', 'samochodu', 'samochodem', 'auto', 'auta', 'autem', 'samochodzik'],
    motorcycle: ['motocykl', 'motocykle', 'motocykla', 'motocyklem', 'skuter', 'motorower'],
    airplane: ['samolot', 'samoloty', 'samolotu', 'samolotem', 'odrzutowiec'],
    bus: ['autobus', 'autobusy', 'autobusu', 'autobusem'],
    train: ['pociąg', 'pociągi', 'pociągu', 'pociągiem', 'lokomotywa', 'kolej'],
    truck: ['ciężarówka', 'ciężarówki', 'ciężarówkę', 'ciężarówek', 'samochód ciężarowy'],
    boat: ['łódka', 'łódki', 'łódkę', 'łodzie', 'statek', 'statki', 'jacht', 'żaglówka'],
    'traffic light': ['sygnalizacja świetlna', 'sygnalizator', 'światła drogowe', 'sygnalizacji świetlnej'],
    'fire hydrant': ['hydrant', 'hydranty', 'hydrant przeciwpożarowy'],
    'stop sign': ['znak stop', 'znaku stop', 'znaki stop'],
    'parking meter': ['parkometr', 'parkometry', 'parkomat'],
    bench: ['ławka', 'ławki', 'ławkę', 'ławce', 'ławek'],
    bird: ['ptak', 'ptaki', 'ptaka', 'ptakiem', 'ptaszek', 'ptaszki', 'ptaków'],
    cat: ['kot', 'koty', 'kota', 'kotem', 'kotek', 'kotka', 'kotki', 'kotów', 'kocur'],
    dog: ['pies', 'psy', 'psem', 'psów', 'piesek', 'pieski', 'pieska', 'szczeniak', 'szczeniaki', 'szczeniaczek'],
    horse: ['koń', 'konie', 'konia', 'koniem', 'koni', 'kucyk', 'kucyki', 'klacz'],
    sheep: ['owca', 'owce', 'owcy', 'owiec', 'owieczka', 'baranek', 'jagnię'],
    cow: ['krowa', 'krowy', 'krowę', 'krów', 'byk', 'cielę', 'cielak', 'bydło'],
    elephant: ['słoń', 'słonie', 'słonia', 'słoniem', 'słoni'],
    bear: ['niedźwiedź', 'niedźwiedzie', 'niedźwiedzia', 'niedźwiadek'],
    zebra: ['zebra', 'zebry', 'zebrę'],
    giraffe: ['żyrafa', 'żyrafy', 'żyrafę'],
    backpack: ['plecak', 'plecaki', 'plecaka', 'plecakiem'],
    umbrella: ['parasol', 'parasole', 'parasolka', 'parasolki', 'parasolkę'],
    handbag: ['torebka', 'torebki', 'torebkę', 'torebek', 'torba', 'torby', 'torbę', 'toreb', 'torebka damska', 'listonoszka', 'kopertówka', 'shopperka'],
    tie: ['krawat', 'krawaty', 'krawatem', 'krawata'],
    suitcase: ['walizka', 'walizki', 'walizkę', 'walizek', 'bagaż'],
    frisbee: ['frisbee', 'latający dysk'],
    skis: ['narty', 'nart', 'narta'],
    snowboard: ['snowboard', 'deska snowboardowa'],
    'sports ball': ['piłka', 'piłki', 'piłkę', 'piłka nożna', 'piłeczka'],
    kite: ['latawiec', 'latawce', 'latawca'],
    'baseball bat': ['kij baseballowy', 'kije baseballowe', 'kij bejsbolowy'],
    'baseball glove': ['rękawica baseballowa', 'rękawica bejsbolowa'],
    skateboard: ['deskorolka', 'deskorolki', 'deskorolkę', 'skateboard'],
    surfboard: ['deska surfingowa', 'deska do surfingu', 'deski surfingowe'],
    'tennis racket': ['rakieta tenisowa', 'rakiety tenisowe', 'rakieta', 'rakietka'],
    bottle: ['butelka', 'butelki', 'butelkę', 'butelek'],
    'wine glass': ['kieliszek', 'kieliszki', 'kieliszek do wina', 'kieliszków'],
    cup: ['kubek', 'kubki', 'kubka', 'filiżanka', 'filiżanki', 'filiżankę', 'kubeczek'],
    fork: ['widelec', 'widelce', 'widelca', 'widelcem'],
    knife: ['nóż', 'noże', 'noża', 'nożem', 'nożyk'],
    spoon: ['łyżka', 'łyżki', 'łyżkę', 'łyżeczka', 'łyżeczki'],
    bowl: ['miska', 'miski', 'miskę', 'misek', 'miseczka'],
    banana: ['banan', 'banany', 'banana', 'bananów'],
    apple: ['jabłko', 'jabłka', 'jabłek', 'jabłuszko'],
    sandwich: ['kanapka', 'kanapki', 'kanapkę', 'kanapek'],
    orange: ['pomarańcza', 'pomarańcze', 'pomarańczę', 'pomarańczy'],
    broccoli: ['brokuł', 'brokuły', 'brokułu', 'brokuły'],
    carrot: ['marchew', 'marchewka', 'marchewki', 'marchwi'],
    'hot dog': ['hot dog', 'hot dogi', 'hotdog', 'hot-dog'],
    pizza: ['pizza', 'pizze', 'pizzę', 'pizzy'],
    donut: ['pączek', 'pączki', 'pączka', 'donut', 'donuty'],
    cake: ['ciasto', 'ciasta', 'tort', 'torty', 'tortu', 'ciastko', 'ciastka'],
    chair: ['krzesło', 'krzesła', 'krzeseł', 'krzesłem', 'fotel', 'fotele', 'fotela', 'taboret', 'stołek'],
    couch: ['kanapa', 'kanapy', 'kanapę', 'kanapie', 'sofa', 'sofy', 'sofę', 'wersalka'],
    'potted plant': ['roślina', 'rośliny', 'roślinę', 'roślin', 'roślina doniczkowa', 'rośliny doniczkowe', 'doniczka', 'doniczki', 'kwiatek doniczkowy'],
    bed: ['łóżko', 'łóżka', 'łóżek', 'łóżkiem'],
    'dining table': ['stół', 'stoły', 'stołu', 'stołem', 'stolik', 'stoliki', 'stół jadalniany'],
    toilet: ['toaleta', 'toalety', 'toaletę', 'sedes', 'ubikacja', 'muszla klozetowa', 'wc'],
    tv: ['telewizor', 'telewizory', 'telewizora', 'telewizja', 'tv'],
    laptop: ['laptop', 'laptopy', 'laptopa', 'laptopem'],
    mouse: ['myszka', 'myszki', 'myszkę', 'mysz komputerowa'],
    remote: ['pilot', 'piloty', 'pilot do telewizora', 'pilot tv'],
    keyboard: ['klawiatura', 'klawiatury', 'klawiaturę'],
    'cell phone': ['telefon', 'telefony', 'telefonu', 'telefonem', 'komórka', 'komórki', 'komórkę', 'smartfon', 'smartfony', 'smartfona'],
    microwave: ['mikrofalówka', 'mikrofalówki', 'mikrofalówkę', 'kuchenka mikrofalowa'],
    oven: ['piekarnik', 'piekarniki', 'piekarnika', 'kuchenka', 'kuchenki', 'piec'],
    toaster: ['toster', 'tostery', 'tostera'],
    sink: ['zlew', 'zlewy', 'zlewozmywak', 'umywalka', 'umywalki', 'umywalkę'],
    refrigerator: ['lodówka', 'lodówki', 'lodówkę', 'chłodziarka'],
    book: ['książka', 'książki', 'książkę', 'książek', 'książeczka'],
    clock: ['zegar', 'zegary', 'zegara', 'zegarek', 'zegarki', 'zegar ścienny', 'budzik'],
    vase: ['wazon', 'wazony', 'wazonu', 'wazonik'],
    scissors: ['nożyczki', 'nożyce'],
    'teddy bear': ['miś', 'misie', 'misia', 'miś pluszowy', 'pluszowy miś', 'pluszak', 'pluszaki', 'maskotka', 'maskotki'],
    'hair drier': ['suszarka do włosów', 'suszarka', 'suszarki do włosów', 'suszarki'],
    toothbrush: ['szczoteczka do zębów', 'szczoteczka', 'szczoteczki do zębów', 'szczoteczki'],
  },
  colors: {
    black: [...adjective('czarny'), 'czerń'],
    charcoal: [...adjectives('grafitowy', 'antracytowy'), 'grafit', 'antracyt'],
    'dark grey': adjectives('ciemnoszary', 'ciemnopopielaty'),
    grey: [...adjectives('szary', 'popielaty'), 'szarość', 'szarości'],
    'light grey': [...adjectives('jasnoszary', 'srebrny'), 'srebro'],
    white: [...adjective('biały'), 'biel'],
    ivory: ['kość słoniowa', 'koloru kości słoniowej', 'złamana biel', ...adjective('śmietankowy')],
    beige: [...adjective('beżowy'), 'piaskowy', 'piaskowa', 'piaskowe'],
    taupe: ['taupe', 'szarobeżowy', 'szarobeżowa', 'szarobeżowe'],
    camel: ['camel', ...adjective('karmelowy'), 'karmel'],
    khaki: ['khaki', 'kaki'],
    brown: [...adjective('brązowy'), 'brąz', 'brązu'],
    'dark brown': [...adjectives('ciemnobrązowy', 'czekoladowy'), 'czekoladowy brąz'],
    rust: [...adjectives('rdzawy', 'ceglasty', 'ceglany'), 'rdza', 'terakota', 'terakotowy', 'terakotowa', 'terakotowe'],
    red: [...adjective('czerwony'), 'czerwień', 'czerwieni'],
    burgundy: [...adjectives('bordowy', 'wiśniowy', 'burgundowy'), 'bordo', 'burgund'],
    coral: [...adjective('koralowy'), 'koral'],
    rose: ['pudrowy róż', 'brudny róż', 'pudrowa róż', ...adjective('pudroworóżowy'), 'stary róż'],
    pink: [...adjective('różowy'), 'róż', 'różu'],
    'hot pink': ['fuksja', 'fuksji', ...adjectives('fuksjowy', 'amarantowy'), 'mocny róż', 'neonowy róż'],
    magenta: ['magenta', ...adjective('magentowy')],
    peach: [...adjectives('brzoskwiniowy', 'morelowy'), 'brzoskwinia'],
    orange: [...adjective('pomarańczowy'), 'oranż', 'oranżowy'],
    mustard: [...adjective('musztardowy'), 'musztarda', 'ochra', 'ochrowy'],
    gold: [...adjective('złoty').filter((f) => f !== 'złotych'), 'złoto', 'złocisty', 'złocista', 'złociste'],
    yellow: [...adjective('żółty'), 'żółć'],
    cream: [...adjective('kremowy'), 'ecru'],
    olive: [...adjective('oliwkowy'), 'oliwka', 'oliwkowa zieleń'],
    'lime green': [...adjectives('limonkowy', 'jasnozielony', 'seledynowy'), 'limonka'],
    green: [...adjective('zielony'), 'zieleń', 'zieleni'],
    'dark green': [...adjectives('ciemnozielony', 'butelkowy', 'szmaragdowy'), 'butelkowa zieleń', 'szmaragd'],
    sage: [...adjective('szałwiowy'), 'szałwia', 'szałwiowa zieleń'],
    mint: [...adjective('miętowy'), 'mięta', 'mint'],
    teal: [...adjective('morski'), 'kolor morski', 'petrol', ...adjective('petrolowy'), ...adjective('zielononiebieski')],
    turquoise: [...adjective('turkusowy'), 'turkus', 'akwamaryna', 'cyjan'],
    'light blue': [...adjective('jasnoniebieski'), ...adjective('błękitny'), 'błękit'],
    'sky blue': [...adjective('lazurowy'), 'lazur', 'kolor nieba', 'błękit nieba'],
    blue: adjective('niebieski'),
    denim: [...adjectives('jeansowy', 'dżinsowy'), 'denim', 'kolor jeansu'],
    'navy blue': [...adjectives('granatowy', 'ciemnoniebieski'), 'navy'],
    purple: [...adjectives('fioletowy', 'purpurowy'), 'fiolet', 'purpura'],
    lavender: [...adjectives('lawendowy', 'liliowy'), 'lawenda'],
    plum: [...adjective('śliwkowy'), 'śliwka', 'bakłażanowy', 'bakłażan'],
    mauve: [...adjective('wrzosowy'), 'wrzos', 'mauve'],
  },
  items: {
    'upper body': ['koszula', 'koszule', 'koszulę', 'koszuli', 'koszulka', 'koszulki', 'koszulkę', 't-shirt', 't-shirty', 'tshirt', 'bluzka', 'bluzki', 'bluzkę', 'sweter', 'swetry', 'sweterek', 'bluza', 'bluzy', 'bluzę', 'kurtka', 'kurtki', 'kurtkę', 'płaszcz', 'płaszcze', 'marynarka', 'marynarki', 'marynarkę', 'kamizelka', 'top', 'topy', 'kardigan', 'żakiet'],
    'lower body': ['spodnie', 'spodni', 'dżinsy', 'jeansy', 'spódnica', 'spódnice', 'spódnicę', 'spódniczka', 'spódniczki', 'szorty', 'spodenki', 'legginsy', 'chinosy'],
    'full body': ['sukienka', 'sukienki', 'sukienkę', 'sukienek', 'suknia', 'suknie', 'kombinezon', 'kombinezony', 'ogrodniczki'],
    footwear: ['buty', 'butów', 'bucik', 'buciki', 'obuwie', 'trampki', 'adidasy', 'sneakersy', 'kozaki', 'botki', 'sandały', 'sandałki', 'szpilki', 'półbuty', 'kalosze', 'mokasyny', 'klapki', 'kapcie'],
  },
  people: {
    face: ['twarz', 'twarze', 'twarzy', 'buzia', 'twarzą'],
  },
};

/** Forms that fold to one (`czerwona` and `czerwoną`) are kept once, as the lexicon test asks. */
const once = (forms: readonly string[]): string[] => {
  const seen = new Set<string>();
  const key = (f: string) => wordsOf(foldText(f)).join(' ');
  return forms.filter((f) => !seen.has(key(f)) && seen.add(key(f)));
};
const each = <K extends string>(m: Readonly<Record<K, readonly string[]>>): Record<K, string[]> =>
  Object.fromEntries(Object.entries(m).map(([k, v]) => [k, once(v as readonly string[])])) as Record<K, string[]>;

export const pl: LanguageWords = { objects: each(written.objects), colors: each(written.colors), items: each(written.items), people: each(written.people) };
