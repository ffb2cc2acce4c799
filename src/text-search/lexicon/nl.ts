import type { LanguageWords } from './concepts.ts';

/**
 * Dutch (the Netherlands and Flanders). Nouns in singular and plural, with the diminutives shops use (hondje, tasje,
 * jurkje); colour adjectives bare and inflected (`rood rode`, `wit witte`, `grijs grijze`), compounds too
 * (`donkerblauw donkerblauwe`, also written apart: `donker blauw`), the invariable ones once (`roze`, `oranje`). A plural
 * written with an apostrophe (auto's, foto's) is read through its singular: the lone `s` is dropped as noise. Not yet
 * reviewed by a native speaker (docs/text-search.md).
 *
 * Left out as everyday English words with another meaning (an English query holding one would be read as Dutch, or an
 * English record would carry the concept): `bank` (bench, sofa), `kind` (child), `mens` ("mens shoes"), `motor`
 * (motorbike), `jack` (jacket), `closet` (toilet bowl), `lam` (lamb), `das` (tie), `kop` (cup), `cognac` (the leather
 * colour). Left out as another lexicon language's everyday word: `rund` (cow; German "rund", round: "Holztisch rund"),
 * `kommen` (bowls; German "to come"), `japon` (dress; French and Spanish Japan). Left out as everyday Dutch words with
 * another meaning: `kom` (bowl, also "come": "kom gerust kijken", h197; `kommetje`, `soepkom`, `slakom` are kept), `munt` (mint, also coin), `rose` (pink; English reads it as the rose shade), `glazen` (glasses, also
 * "made of glass": "glazen vaas"), `schaal` (bowl, also scale: "schaal 1:43"). `beer` (bear), `rode` (red) and `wit`
 * (white) are English words too, and `mes` (knife), `appel` (apple), `bal` (ball) French ones ("mes photos", "appel
 * vidéo", "robe de bal"), `messen` German ("to measure"): they are Dutch only where the text is read as Dutch
 * (`ownLanguageOnly` in lexicon.ts), so "rode auto" is a red car and "beer glass", "the rider rode" keep their meaning.
 * Kept on purpose: `tas` (bag; French "un tas", a pile), the everyday Dutch word, which a French text rarely holds.
 * Across languages, `boot` is a boat here and in German and a shoe in English, `tassen` bags here and cups in German:
 * the query's language decides, and alone each is read as the earlier language (English, German).
 */

/** A colour adjective bare and inflected (`rood`, `rode`), each also with the prefixes written apart (`donker blauw`). */
const adjective = (bare: string, inflected: string): string[] => [bare, inflected];
/** A shade compound (`donker` + `blauw`, `blauwe`): written as one word and as two. */
const shade = (prefix: string, bare: string, inflected: string): string[] => [`${prefix}${bare}`, `${prefix}${inflected}`, `${prefix} ${bare}`, `${prefix} ${inflected}`];

export const nl: LanguageWords = {
  objects: {
    person: ['persoon', 'personen', 'mensen', 'man', 'mannen', 'vrouw', 'vrouwen', 'jongen', 'jongens', 'meisje', 'meisjes', 'kinderen', 'kindje', 'portret', 'portretten', 'groep', 'selfie'],
    bicycle: ['fiets', 'fietsen', 'fietsje', 'rijwiel', 'racefiets', 'mountainbike'],
    car: ['auto', 'autos', 'autootje', 'wagen', 'personenauto'],
    motorcycle: ['motorfiets', 'motorfietsen', 'brommer', 'brommers', 'scooter'],
    airplane: ['vliegtuig', 'vliegtuigen', 'vliegtuigje', 'straalvliegtuig', 'jet'],
    bus: ['bus', 'bussen', 'autobus', 'touringcar', 'busje'],
    train: ['trein', 'treinen', 'treintje', 'locomotief'],
    truck: ['vrachtwagen', 'vrachtwagens', 'vrachtauto', 'truck', 'bestelbus', 'bestelwagen'],
    boat: ['boot', 'boten', 'bootje', 'schip', 'schepen', 'zeilboot', 'jacht'],
    'traffic light': ['verkeerslicht', 'verkeerslichten', 'stoplicht', 'stoplichten'],
    'fire hydrant': ['brandkraan', 'brandkranen', 'hydrant'],
    'stop sign': ['stopbord', 'stopborden'],
    'parking meter': ['parkeermeter', 'parkeermeters', 'parkeerautomaat'],
    bench: ['bankje', 'bankjes', 'parkbank', 'tuinbank', 'zitbankje'],
    bird: ['vogel', 'vogels', 'vogeltje', 'vogeltjes'],
    cat: ['kat', 'katten', 'katje', 'poes', 'poezen', 'poesje', 'kitten'],
    dog: ['hond', 'honden', 'hondje', 'hondjes', 'puppy', 'puppys'],
    horse: ['paard', 'paarden', 'paardje', 'pony', 'veulen'],
    sheep: ['schaap', 'schapen', 'schaapje', 'lammetje', 'lammetjes'],
    cow: ['koe', 'koeien', 'koetje', 'kalf', 'kalfje', 'stier', 'runderen'],
    elephant: ['olifant', 'olifanten'],
    bear: ['beer', 'beren', 'beertje'],
    zebra: ['zebra'],
    giraffe: ['giraf', 'giraffe', 'giraffen'],
    backpack: ['rugzak', 'rugzakken', 'rugtas', 'rugzakje'],
    umbrella: ['paraplu', 'paraplus', 'parasol', 'parasols'],
    handbag: ['handtas', 'handtassen', 'tas', 'tassen', 'tasje', 'tasjes', 'schoudertas', 'damestas'],
    tie: ['stropdas', 'stropdassen'],
    suitcase: ['koffer', 'koffers', 'reiskoffer', 'bagage'],
    frisbee: ['frisbee'],
    skis: ['ski', 'skis'],
    snowboard: ['snowboard'],
    'sports ball': ['bal', 'ballen', 'balletje', 'voetbal'],
    kite: ['vlieger', 'vliegers'],
    'baseball bat': ['honkbalknuppel', 'baseballknuppel', 'knuppel'],
    'baseball glove': ['honkbalhandschoen', 'honkbalhandschoenen'],
    skateboard: ['skateboard'],
    surfboard: ['surfplank', 'surfplanken'],
    'tennis racket': ['tennisracket', 'tennisrackets'],
    bottle: ['fles', 'flessen', 'flesje', 'flesjes', 'drinkfles'],
    'wine glass': ['wijnglas', 'wijnglazen', 'glas'],
    cup: ['kopje', 'kopjes', 'beker', 'bekers', 'mok', 'mokken', 'koffiekop'],
    fork: ['vork', 'vorken'],
    knife: ['mes', 'messen', 'mesje'],
    spoon: ['lepel', 'lepels', 'theelepel'],
    bowl: ['kommetje', 'kommetjes', 'schaaltje', 'schaaltjes', 'soepkom', 'soepkommen', 'slakom', 'slakommen', 'saladekom', 'mengkom', 'mengkommen', 'ontbijtkom', 'fruitschaal'],
    banana: ['banaan', 'bananen'],
    apple: ['appel', 'appels', 'appelen', 'appeltje'],
    sandwich: ['broodje', 'broodjes', 'sandwich', 'tosti'],
    orange: ['sinaasappel', 'sinaasappels', 'sinaasappelen', 'appelsien', 'appelsienen'],
    broccoli: ['broccoli'],
    carrot: ['wortel', 'wortels', 'wortelen', 'peen', 'peentje', 'winterpeen'],
    'hot dog': ['hotdog', 'hot dog', 'hotdogs', 'hot dogs'],
    pizza: ['pizza', 'pizzas'],
    donut: ['donut', 'donuts', 'oliebol', 'oliebollen'],
    cake: ['taart', 'taarten', 'taartje', 'gebak', 'cake'],
    chair: ['stoel', 'stoelen', 'stoeltje', 'fauteuil', 'fauteuils', 'leunstoel', 'kruk', 'krukje'],
    couch: ['bankstel', 'zitbank', 'driezitsbank', 'hoekbank', 'sofa'],
    'potted plant': ['plant', 'planten', 'plantje', 'kamerplant', 'kamerplanten', 'potplant', 'potplanten'],
    bed: ['bed', 'bedden', 'bedje', 'tweepersoonsbed'],
    'dining table': ['tafel', 'tafels', 'tafeltje', 'eettafel', 'eettafels', 'salontafel'],
    toilet: ['toilet', 'toiletten', 'wc', 'toiletpot', 'wc pot'],
    tv: ['televisie', 'televisies', 'tv', 'tv toestel'],
    laptop: ['laptop', 'laptops'],
    mouse: ['muis', 'computermuis'],
    remote: ['afstandsbediening', 'afstandsbedieningen'],
    keyboard: ['toetsenbord', 'toetsenborden'],
    'cell phone': ['telefoon', 'telefoons', 'mobiel', 'mobieltje', 'mobiele telefoon', 'gsm', 'smartphone'],
    microwave: ['magnetron', 'magnetrons', 'microgolfoven'],
    oven: ['oven', 'ovens', 'fornuis', 'kookplaat'],
    toaster: ['broodrooster', 'toaster'],
    sink: ['gootsteen', 'wastafel', 'wastafels', 'wasbak'],
    refrigerator: ['koelkast', 'koelkasten', 'ijskast', 'frigo'],
    book: ['boek', 'boeken', 'boekje'],
    clock: ['klok', 'klokken', 'klokje', 'wandklok', 'wekker'],
    vase: ['vaas', 'vazen', 'vaasje'],
    scissors: ['schaar', 'scharen', 'schaartje'],
    'teddy bear': ['teddybeer', 'teddyberen', 'knuffelbeer', 'knuffel', 'knuffels'],
    'hair drier': ['föhn', 'haardroger', 'haardrogers'],
    toothbrush: ['tandenborstel', 'tandenborstels'],
  },
  colors: {
    black: adjective('zwart', 'zwarte'),
    charcoal: ['antraciet', ...adjective('antracietgrijs', 'antracietgrijze')],
    'dark grey': shade('donker', 'grijs', 'grijze'),
    grey: adjective('grijs', 'grijze'),
    'light grey': [...shade('licht', 'grijs', 'grijze'), 'zilver', 'zilveren', 'zilverkleurig', 'zilverkleurige'],
    white: adjective('wit', 'witte'),
    ivory: ['ivoor', 'ivoorwit', 'ivoorkleurig', 'ivoorkleurige', 'gebroken wit', 'gebroken witte'],
    beige: ['beige', 'zandkleurig', 'zandkleurige'],
    taupe: ['taupe'],
    camel: ['camel', 'camelkleurig', 'camelkleurige'],
    khaki: ['kaki', 'khaki'],
    brown: adjective('bruin', 'bruine'),
    'dark brown': [...shade('donker', 'bruin', 'bruine'), 'chocoladebruin', 'chocoladebruine'],
    rust: ['roest', 'roestbruin', 'roestbruine', 'roestkleurig', 'roestkleurige', 'terracotta'],
    red: adjective('rood', 'rode'),
    burgundy: ['bordeaux', 'bordeauxrood', 'bordeauxrode', 'wijnrood', 'wijnrode'],
    coral: ['koraal', 'koraalrood', 'koraalrode', 'koraalkleurig', 'koraalkleurige'],
    rose: ['oudroze', 'oud roze', 'poederroze'],
    pink: ['roze'],
    'hot pink': ['fuchsia', 'knalroze', 'felroze'],
    magenta: ['magenta'],
    peach: ['perzik', 'perzikkleurig', 'perzikkleurige', 'abrikoos', 'zalmroze'],
    orange: ['oranje'],
    mustard: ['mosterd', 'mosterdgeel', 'mosterdgele', 'oker', 'okergeel', 'okergele'],
    gold: ['goud', 'gouden', 'goudkleurig', 'goudkleurige'],
    yellow: adjective('geel', 'gele'),
    cream: ['crème', 'crèmekleurig', 'crèmekleurige', 'ecru'],
    olive: ['olijf', 'olijfgroen', 'olijfgroene', 'legergroen', 'legergroene'],
    'lime green': ['limoen', 'limoengroen', 'limoengroene', ...shade('licht', 'groen', 'groene'), 'felgroen', 'felgroene'],
    green: adjective('groen', 'groene'),
    'dark green': [...shade('donker', 'groen', 'groene'), 'flessengroen', 'flessengroene', 'bosgroen', 'bosgroene'],
    sage: ['salie', 'saliegroen', 'saliegroene'],
    mint: ['mint', 'mintgroen', 'mintgroene'],
    teal: ['petrol', 'petrolblauw', 'petrolblauwe', 'blauwgroen', 'blauwgroene'],
    turquoise: ['turquoise', 'turkoois', 'turkooise', 'aqua', 'cyaan'],
    'light blue': [...shade('licht', 'blauw', 'blauwe'), 'babyblauw', 'babyblauwe'],
    'sky blue': ['hemelsblauw', 'hemelsblauwe', 'azuur', 'azuurblauw', 'azuurblauwe'],
    blue: adjective('blauw', 'blauwe'),
    denim: ['denim', 'jeansblauw', 'jeansblauwe'],
    'navy blue': ['marineblauw', 'marineblauwe', ...shade('donker', 'blauw', 'blauwe'), 'navy', 'marine'],
    purple: ['paars', 'paarse', 'purper', 'violet'],
    lavender: ['lavendel', 'lila', 'lichtpaars', 'lichtpaarse'],
    plum: ['pruim', 'pruimkleurig', 'pruimkleurige', 'aubergine', 'donkerpaars', 'donkerpaarse'],
    mauve: ['mauve'],
  },
  items: {
    'upper body': ['shirt', 'shirts', 'shirtje', 't-shirt', 't-shirts', 'overhemd', 'overhemden', 'blouse', 'blouses', 'bloesje', 'trui', 'truien', 'truitje', 'sweater', 'hoodie', 'vest', 'vesten', 'vestje', 'jas', 'jassen', 'jasje', 'colbert', 'top', 'topje'],
    'lower body': ['broek', 'broeken', 'broekje', 'spijkerbroek', 'spijkerbroeken', 'jeans', 'rok', 'rokken', 'rokje', 'minirok', 'korte broek', 'shorts', 'legging'],
    'full body': ['jurk', 'jurken', 'jurkje', 'jurkjes', 'avondjurk', 'overall', 'jumpsuit', 'tuinbroek'],
    footwear: ['schoen', 'schoenen', 'schoentje', 'schoentjes', 'sneaker', 'sneakers', 'gympen', 'gympies', 'laars', 'laarzen', 'laarsje', 'laarsjes', 'enkellaarsjes', 'sandaal', 'sandalen', 'pumps', 'hakken', 'hoge hakken', 'slippers', 'instappers', 'pantoffels'],
  },
  people: {
    face: ['gezicht', 'gezichten', 'gezichtje', 'gelaat'],
  },
};
