import type { LanguageWords } from './concepts.ts';
import { formsOnce } from './forms-once.ts';

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
 * remote; English "pilot"), `miś` ("mis", Spanish "my"), `nóż` (Portuguese "noz", walnut), `psa` (the dog's: "zdjęcie psa";
 * never before a grade, "PSA 10 Charizard", query.ts), `stole` (on the table, "kot na stole"; English "stole"). Every noun
 * also in the genitive singular and plural, the instrumental and the locative where they differ ("pięć samolotów", "bez
 * mężczyzn", "kot na kanapie", "w sukience"); compound colours also written apart or hyphenated (`ciemno-zielony`), and a
 * colour's first element (`czarno`, `biało`) a colour of its own: "czarno-biały" is black and white. Left out as everyday
 * words a seller writes (h197): `suszarka` alone (a hair drier, also a clothes horse and a dish rack: `suszarka do włosów`
 * is kept), `piece` (stoves; English "piece", One Piece). `pięć` (five) folds to `piec` (a stove): the number wins when
 * typed with its marks or before a people word (query.ts). `stół` (table) folds to `stol`, a chair in Swedish: the query's language decides.
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
/** A compound shade (`ciemno` + `szary`) in its forms written as one word and apart or hyphenated (`ciemno-szary`). */
const compound = (prefix: string, colour: string): string[] => [...adjective(prefix + colour), ...adjective(colour).map((f) => `${prefix} ${f}`)];

const written: LanguageWords = {
  objects: {
    person: ['osoba', 'osoby', 'osób', 'ludzie', 'ludzi', 'człowiek', 'mężczyzna', 'mężczyźni', 'mężczyzny', 'kobieta', 'kobiety', 'kobiet', 'chłopiec', 'chłopcy', 'chłopak', 'dziewczyna', 'dziewczyny', 'dziewczynka', 'dziecko', 'dzieci', 'portret', 'grupa', 'selfie', 'osobę', 'osobą', 'osobami', 'ludźmi', 'człowieka', 'człowiekiem', 'mężczyznę', 'mężczyzn', 'mężczyzną', 'mężczyznami', 'kobietę', 'kobietą', 'kobietami', 'chłopca', 'chłopców', 'chłopcem', 'chłopaka', 'chłopaki', 'chłopaków', 'chłopakiem', 'dziewczynę', 'dziewczyn', 'dziewczyną', 'dziewczynki', 'dziewczynkę', 'dziewczynek', 'dziewczynką', 'dziecka', 'dzieckiem', 'dziećmi', 'portretu', 'portrety'],
    bicycle: ['rower', 'rowery', 'roweru', 'rowerem', 'rowerek', 'rowerów', 'rowerze', 'rowerkiem'],
    car: ['samochód', 'samochody', 'samochodu', 'samochodem', 'auto', 'auta', 'autem', 'samochodzik', 'samochodów', 'samochodzie', 'aut', 'aucie', 'samochodziki', 'samochodzika'],
    motorcycle: ['motocykl', 'motocykle', 'motocykla', 'motocyklem', 'skuter', 'motorower', 'motocykli', 'motocyklu', 'skutera', 'skutery', 'skuterem'],
    airplane: ['samolot', 'samoloty', 'samolotu', 'samolotem', 'odrzutowiec', 'samolotów', 'samolocie', 'samolotami'],
    bus: ['autobus', 'autobusy', 'autobusu', 'autobusem', 'autobusów', 'autobusie'],
    train: ['pociąg', 'pociągi', 'pociągu', 'pociągiem', 'lokomotywa', 'kolej', 'pociągów', 'lokomotywy', 'lokomotywę', 'lokomotyw'],
    truck: ['ciężarówka', 'ciężarówki', 'ciężarówkę', 'ciężarówek', 'samochód ciężarowy', 'ciężarówką', 'ciężarówce'],
    boat: ['łódka', 'łódki', 'łódkę', 'łodzie', 'statek', 'statki', 'jacht', 'żaglówka', 'łódek', 'łódką', 'łódce', 'statku', 'statkiem', 'statków', 'jachtu', 'jachty', 'jachtem', 'żaglówki', 'żaglówkę'],
    'traffic light': ['sygnalizacja świetlna', 'sygnalizator', 'światła drogowe', 'sygnalizacji świetlnej'],
    'fire hydrant': ['hydrant', 'hydranty', 'hydrant przeciwpożarowy'],
    'stop sign': ['znak stop', 'znaku stop', 'znaki stop'],
    'parking meter': ['parkometr', 'parkometry', 'parkomat'],
    bench: ['ławka', 'ławki', 'ławkę', 'ławce', 'ławek', 'ławką'],
    bird: ['ptak', 'ptaki', 'ptaka', 'ptakiem', 'ptaszek', 'ptaszki', 'ptaków', 'ptakami'],
    cat: ['kot', 'koty', 'kota', 'kotem', 'kotek', 'kotka', 'kotki', 'kotów', 'kocur', 'kotami', 'kotkiem', 'kociak', 'kociaki', 'kociaka'],
    dog: ['pies', 'psy', 'psem', 'psów', 'piesek', 'pieski', 'pieska', 'szczeniak', 'szczeniaki', 'szczeniaczek', 'psa', 'psami', 'pieskiem', 'piesków', 'szczeniaka', 'szczeniaków'],
    horse: ['koń', 'konie', 'konia', 'koniem', 'koni', 'kucyk', 'kucyki', 'klacz', 'końmi', 'kucyka', 'kucyków'],
    sheep: ['owca', 'owce', 'owcy', 'owiec', 'owieczka', 'baranek', 'jagnię', 'owcę', 'owcami'],
    cow: ['krowa', 'krowy', 'krowę', 'krów', 'byk', 'cielę', 'cielak', 'bydło', 'krową', 'krowami', 'byka', 'byki'],
    elephant: ['słoń', 'słonie', 'słonia', 'słoniem', 'słoni', 'słoniami'],
    bear: ['niedźwiedź', 'niedźwiedzie', 'niedźwiedzia', 'niedźwiadek', 'niedźwiedzi', 'niedźwiedziem'],
    zebra: ['zebra', 'zebry', 'zebrę'],
    giraffe: ['żyrafa', 'żyrafy', 'żyrafę', 'żyraf'],
    backpack: ['plecak', 'plecaki', 'plecaka', 'plecakiem', 'plecaków', 'plecaku'],
    umbrella: ['parasol', 'parasole', 'parasolka', 'parasolki', 'parasolkę', 'parasola', 'parasoli', 'parasolem', 'parasolek', 'parasolką'],
    handbag: ['torebka', 'torebki', 'torebkę', 'torebek', 'torba', 'torby', 'torbę', 'toreb', 'torebka damska', 'listonoszka', 'kopertówka', 'shopperka', 'torebką', 'torebce', 'torbą', 'torbie'],
    tie: ['krawat', 'krawaty', 'krawatem', 'krawata', 'krawatów'],
    suitcase: ['walizka', 'walizki', 'walizkę', 'walizek', 'bagaż', 'walizką', 'walizce'],
    frisbee: ['frisbee', 'latający dysk'],
    skis: ['narty', 'nart', 'narta'],
    snowboard: ['snowboard', 'deska snowboardowa'],
    'sports ball': ['piłka', 'piłki', 'piłkę', 'piłka nożna', 'piłeczka', 'piłek', 'piłką', 'piłce'],
    kite: ['latawiec', 'latawce', 'latawca', 'latawców', 'latawcem'],
    'baseball bat': ['kij baseballowy', 'kije baseballowe', 'kij bejsbolowy'],
    'baseball glove': ['rękawica baseballowa', 'rękawica bejsbolowa'],
    skateboard: ['deskorolka', 'deskorolki', 'deskorolkę', 'skateboard'],
    surfboard: ['deska surfingowa', 'deska do surfingu', 'deski surfingowe'],
    'tennis racket': ['rakieta tenisowa', 'rakiety tenisowe', 'rakieta', 'rakietka'],
    bottle: ['butelka', 'butelki', 'butelkę', 'butelek', 'butelką', 'butelce'],
    'wine glass': ['kieliszek', 'kieliszki', 'kieliszek do wina', 'kieliszków', 'kieliszka', 'kieliszkiem'],
    cup: ['kubek', 'kubki', 'kubka', 'filiżanka', 'filiżanki', 'filiżankę', 'kubeczek', 'kubków', 'kubkiem', 'kubeczki', 'filiżanek', 'filiżanką'],
    fork: ['widelec', 'widelce', 'widelca', 'widelcem', 'widelców'],
    knife: ['nóż', 'noże', 'noża', 'nożem', 'nożyk', 'noży', 'nożami'],
    spoon: ['łyżka', 'łyżki', 'łyżkę', 'łyżeczka', 'łyżeczki', 'łyżek', 'łyżką', 'łyżeczkę', 'łyżeczek'],
    bowl: ['miska', 'miski', 'miskę', 'misek', 'miseczka', 'miską', 'miseczki', 'miseczkę'],
    banana: ['banan', 'banany', 'banana', 'bananów'],
    apple: ['jabłko', 'jabłka', 'jabłek', 'jabłuszko', 'jabłkiem', 'jabłkami'],
    sandwich: ['kanapka', 'kanapki', 'kanapkę', 'kanapek', 'kanapką'],
    orange: ['pomarańcza', 'pomarańcze', 'pomarańczę', 'pomarańczy', 'pomarańczą'],
    broccoli: ['brokuł', 'brokuły', 'brokułu', 'brokuły'],
    carrot: ['marchew', 'marchewka', 'marchewki', 'marchwi', 'marchewkę', 'marchewek'],
    'hot dog': ['hot dog', 'hot dogi', 'hotdog', 'hot-dog'],
    pizza: ['pizza', 'pizze', 'pizzę', 'pizzy'],
    donut: ['pączek', 'pączki', 'pączka', 'donut', 'donuty', 'pączków'],
    cake: ['ciasto', 'ciasta', 'tort', 'torty', 'tortu', 'ciastko', 'ciastka', 'ciast', 'tortów', 'tortem', 'ciastek'],
    chair: ['krzesło', 'krzesła', 'krzeseł', 'krzesłem', 'fotel', 'fotele', 'fotela', 'taboret', 'stołek', 'krześle', 'foteli', 'fotelu', 'fotelem', 'taboretu', 'stołka', 'stołki'],
    couch: ['kanapa', 'kanapy', 'kanapę', 'kanapie', 'sofa', 'sofy', 'sofę', 'wersalka', 'kanap', 'kanapą', 'sofie', 'sof', 'sofą'],
    'potted plant': ['roślina', 'rośliny', 'roślinę', 'roślin', 'roślina doniczkowa', 'rośliny doniczkowe', 'doniczka', 'doniczki', 'kwiatek doniczkowy', 'rośliną', 'roślinami', 'doniczkę', 'doniczek', 'doniczce'],
    bed: ['łóżko', 'łóżka', 'łóżek', 'łóżkiem', 'łóżku'],
    'dining table': ['stół', 'stoły', 'stołu', 'stołem', 'stolik', 'stoliki', 'stół jadalniany', 'stołów', 'stole', 'stolika', 'stolikiem', 'stoliku', 'stolików'],
    toilet: ['toaleta', 'toalety', 'toaletę', 'sedes', 'ubikacja', 'muszla klozetowa', 'wc', 'toalecie', 'toalet', 'sedesu'],
    tv: ['telewizor', 'telewizory', 'telewizora', 'telewizja', 'tv', 'telewizorów', 'telewizorem', 'telewizorze'],
    laptop: ['laptop', 'laptopy', 'laptopa', 'laptopem', 'laptopów', 'laptopie'],
    mouse: ['myszka', 'myszki', 'myszkę', 'mysz komputerowa', 'myszką', 'myszek'],
    remote: ['pilot', 'piloty', 'pilot do telewizora', 'pilot tv'],
    keyboard: ['klawiatura', 'klawiatury', 'klawiaturę', 'klawiaturą', 'klawiatur'],
    'cell phone': ['telefon', 'telefony', 'telefonu', 'telefonem', 'komórka', 'komórki', 'komórkę', 'smartfon', 'smartfony', 'smartfona', 'telefonów', 'telefonie', 'komórką', 'smartfonem', 'smartfonów', 'telefon komórkowy', 'telefony komórkowe', 'telefonu komórkowego', 'telefonem komórkowym', 'telefonów komórkowych'],
    microwave: ['mikrofalówka', 'mikrofalówki', 'mikrofalówkę', 'kuchenka mikrofalowa', 'mikrofalówką', 'mikrofalówek', 'kuchenki mikrofalowej', 'kuchenkę mikrofalową', 'kuchenki mikrofalowe'],
    oven: ['piekarnik', 'piekarniki', 'piekarnika', 'kuchenka', 'kuchenki', 'piec', 'piekarnikiem', 'piekarników', 'piekarniku', 'kuchenkę', 'kuchenek', 'pieca', 'pieców', 'piecem', 'piecu'],
    toaster: ['toster', 'tostery', 'tostera'],
    sink: ['zlew', 'zlewy', 'zlewozmywak', 'umywalka', 'umywalki', 'umywalkę', 'umywalek', 'umywalką'],
    refrigerator: ['lodówka', 'lodówki', 'lodówkę', 'chłodziarka', 'lodówką', 'lodówek', 'lodówce'],
    book: ['książka', 'książki', 'książkę', 'książek', 'książeczka', 'książką', 'książkami', 'książce'],
    clock: ['zegar', 'zegary', 'zegara', 'zegarek', 'zegarki', 'zegar ścienny', 'budzik', 'zegarem', 'zegarów', 'zegarka', 'zegarkiem', 'zegarków', 'budzika', 'budziki'],
    vase: ['wazon', 'wazony', 'wazonu', 'wazonik', 'wazonem', 'wazonów', 'wazonie'],
    scissors: ['nożyczki', 'nożyce', 'nożyczek', 'nożyczkami'],
    'teddy bear': ['miś', 'misie', 'misia', 'miś pluszowy', 'pluszowy miś', 'pluszak', 'pluszaki', 'maskotka', 'maskotki', 'misiem', 'misiów', 'pluszaka', 'pluszaków', 'maskotkę', 'maskotek'],
    'hair drier': ['suszarka do włosów', 'suszarki do włosów', 'suszarkę do włosów', 'suszarką do włosów'],
    toothbrush: ['szczoteczka do zębów', 'szczoteczka', 'szczoteczki do zębów', 'szczoteczki', 'szczoteczkę do zębów', 'szczoteczek do zębów'],
  },
  colors: {
    black: [...adjective('czarny'), 'czerń', 'czarno'],
    charcoal: [...adjectives('grafitowy', 'antracytowy'), 'grafit', 'antracyt'],
    'dark grey': [...compound('ciemno', 'szary'), ...compound('ciemno', 'popielaty')],
    grey: [...adjectives('szary', 'popielaty'), 'szarość', 'szarości', 'szaro'],
    'light grey': [...compound('jasno', 'szary'), ...adjective('srebrny'), 'srebro', 'srebrno'],
    white: [...adjective('biały'), 'biel', 'biało'],
    ivory: ['kość słoniowa', 'koloru kości słoniowej', 'złamana biel', ...adjective('śmietankowy')],
    beige: [...adjective('beżowy'), 'piaskowy', 'piaskowa', 'piaskowe'],
    taupe: ['taupe', 'szarobeżowy', 'szarobeżowa', 'szarobeżowe'],
    camel: ['camel', ...adjective('karmelowy'), 'karmel'],
    khaki: ['khaki', 'kaki'],
    brown: [...adjective('brązowy'), 'brąz', 'brązu', 'brązowo'],
    'dark brown': [...compound('ciemno', 'brązowy'), ...adjective('czekoladowy'), 'czekoladowy brąz'],
    rust: [...adjectives('rdzawy', 'ceglasty', 'ceglany'), 'rdza', 'terakota', 'terakotowy', 'terakotowa', 'terakotowe'],
    red: [...adjective('czerwony'), 'czerwień', 'czerwieni', 'czerwono'],
    burgundy: [...adjectives('bordowy', 'wiśniowy', 'burgundowy'), 'bordo', 'burgund'],
    coral: [...adjective('koralowy'), 'koral'],
    rose: ['pudrowy róż', 'brudny róż', 'pudrowa róż', ...adjective('pudroworóżowy'), 'stary róż'],
    pink: [...adjective('różowy'), 'róż', 'różu', 'różowo'],
    'hot pink': ['fuksja', 'fuksji', ...adjectives('fuksjowy', 'amarantowy'), 'mocny róż', 'neonowy róż'],
    magenta: ['magenta', ...adjective('magentowy')],
    peach: [...adjectives('brzoskwiniowy', 'morelowy'), 'brzoskwinia'],
    orange: [...adjective('pomarańczowy'), 'oranż', 'oranżowy', 'pomarańczowo'],
    mustard: [...adjective('musztardowy'), 'musztarda', 'ochra', 'ochrowy'],
    gold: [...adjective('złoty').filter((f) => f !== 'złotych'), 'złoto', 'złocisty', 'złocista', 'złociste'],
    yellow: [...adjective('żółty'), 'żółć', 'żółto'],
    cream: [...adjective('kremowy'), 'ecru'],
    olive: [...adjective('oliwkowy'), 'oliwka', 'oliwkowa zieleń'],
    'lime green': [...adjectives('limonkowy', 'seledynowy'), ...compound('jasno', 'zielony'), 'limonka'],
    green: [...adjective('zielony'), 'zieleń', 'zieleni', 'zielono'],
    'dark green': [...compound('ciemno', 'zielony'), ...adjectives('butelkowy', 'szmaragdowy'), 'butelkowa zieleń', 'szmaragd'],
    sage: [...adjective('szałwiowy'), 'szałwia', 'szałwiowa zieleń'],
    mint: [...adjective('miętowy'), 'mięta', 'mint'],
    teal: [...adjective('morski'), 'kolor morski', 'petrol', ...adjective('petrolowy'), ...adjective('zielononiebieski')],
    turquoise: [...adjective('turkusowy'), 'turkus', 'akwamaryna', 'cyjan'],
    'light blue': [...compound('jasno', 'niebieski'), ...adjective('błękitny'), 'błękit'],
    'sky blue': [...adjective('lazurowy'), 'lazur', 'kolor nieba', 'błękit nieba'],
    blue: [...adjective('niebieski'), 'niebiesko'],
    denim: [...adjectives('jeansowy', 'dżinsowy'), 'denim', 'kolor jeansu'],
    'navy blue': [...adjective('granatowy'), ...compound('ciemno', 'niebieski'), 'navy', 'granatowo'],
    purple: [...adjectives('fioletowy', 'purpurowy'), 'fiolet', 'purpura', 'fioletowo'],
    lavender: [...adjectives('lawendowy', 'liliowy'), 'lawenda'],
    plum: [...adjective('śliwkowy'), 'śliwka', 'bakłażanowy', 'bakłażan'],
    mauve: [...adjective('wrzosowy'), 'wrzos', 'mauve'],
  },
  items: {
    'upper body': ['koszula', 'koszule', 'koszulę', 'koszuli', 'koszulka', 'koszulki', 'koszulkę', 't-shirt', 't-shirty', 'tshirt', 'bluzka', 'bluzki', 'bluzkę', 'sweter', 'swetry', 'sweterek', 'bluza', 'bluzy', 'bluzę', 'kurtka', 'kurtki', 'kurtkę', 'płaszcz', 'płaszcze', 'marynarka', 'marynarki', 'marynarkę', 'kamizelka', 'top', 'topy', 'kardigan', 'żakiet', 'koszul', 'koszulą', 'koszulek', 'koszulką', 'bluzek', 'bluzką', 'swetra', 'swetrów', 'swetrem', 'bluz', 'bluzą', 'kurtek', 'kurtką', 'płaszcza', 'płaszczy', 'płaszczem', 'marynarek', 'kamizelki', 'kamizelkę'],
    'lower body': ['spodnie', 'spodni', 'dżinsy', 'jeansy', 'spódnica', 'spódnice', 'spódnicę', 'spódniczka', 'spódniczki', 'szorty', 'spodenki', 'legginsy', 'chinosy', 'spodniach', 'dżinsów', 'dżinsach', 'jeansów', 'jeansach', 'spódnic', 'spódnicą', 'spódniczkę', 'spódniczek', 'szortów', 'spodenek', 'legginsów'],
    'full body': ['sukienka', 'sukienki', 'sukienkę', 'sukienek', 'suknia', 'suknie', 'kombinezon', 'kombinezony', 'ogrodniczki', 'sukienką', 'sukience', 'suknię', 'sukni', 'kombinezonu'],
    footwear: ['buty', 'butów', 'bucik', 'buciki', 'obuwie', 'trampki', 'adidasy', 'sneakersy', 'kozaki', 'botki', 'sandały', 'sandałki', 'szpilki', 'półbuty', 'kalosze', 'mokasyny', 'klapki', 'kapcie', 'butach', 'sandałów', 'szpilkach', 'szpilek', 'kozaków'],
  },
  people: {
    face: ['twarz', 'twarze', 'twarzy', 'buzia', 'twarzą'],
  },
};

export const pl: LanguageWords = formsOnce(written);
