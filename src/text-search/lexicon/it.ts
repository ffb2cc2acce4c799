import type { LanguageWords } from './concepts.ts';

/**
 * Italian. Nouns in singular and plural, with the diminutives shops use (gattino, borsetta, vestitino); colour
 * adjectives in their four gender and number forms (`rosso rossa rossi rosse`, `bianco bianca bianchi bianche`), the
 * two-form ones in both (`verde verdi`, `marrone marroni`) and the invariable ones once (`blu`, `rosa`, `beige`); a shade
 * with its qualifier agreeing too (`grigio scuro`, `grigia scura`, `grigi scuri`, `grigie scure`). Not yet reviewed by
 * a native speaker (docs/text-search.md).
 *
 * Left out as everyday English words with another meaning (an English query holding one would be read as Italian, or
 * an English record would carry the concept): `water` (WC), `shopper` (tote), `trolley` (suitcase), `toast`
 * (sandwich), `volatile` (bird), `libretto` (book), `bimbo`, `polo`, `notebook`, `blazer`, `bermuda`, `surf`. Left out
 * as another lexicon language's word with another meaning: `autocarro` (a truck; Portuguese reads it as a bus), `tir`
 * (French: shooting). Left out as everyday Italian words with another meaning: `bordò` (folds to `bordo`, edge),
 * `pesca` (peach, also fishing: "canna da pesca"), `dolce` (cake, also sweet; Dolce & Gabbana), `tavola` (table, also
 * board and plate), `bagno` (bathroom, not the toilet: "tappeto bagno"), `montone` (also shearling), `sandalo` (also
 * sandalwood), `letto` alone (bed, also "read": "libro letto una volta", h197; `letti`, `letto matrimoniale`,
 * `letto singolo` are kept), `crema` alone (cream, also the cosmetic: "crema viso"; `color crema` is kept), `petrolio`, `mattone`, `talpa` and `guantone` alone (oil, brick, mole, boxing glove: only in their
 * colour or baseball phrases), `vaso` as a flower pot (it is the vase), `décolleté` (pumps; in English a neckline).
 * `cane` (dog), `gonna` (skirt), `panini` (Panini, the sticker and trading-card maker), `sci` (sci-fi) and `viola` (the
 * instrument) are English words too, and `donne` (women) a French verb: they are Italian only where the text is read
 * as Italian (`ownLanguageOnly` in lexicon.ts), so "cane nero" is a black dog and "candy cane", "Panini Prizm" stay
 * words. Across languages, `vaso` is the vase here and a glass (cup) in Spanish: the query's language decides, and
 * alone it is Spanish.
 */

/** A colour adjective in -o: its four forms (`ross` → rosso rossa rossi rosse; a c or g keeps its sound: bianchi). */
const adjective = (stem: string): string[] => {
  const hard = /[cg]$/.test(stem) ? 'h' : '';
  return [`${stem}o`, `${stem}a`, `${stem}${hard}i`, `${stem}${hard}e`];
};
/** A colour adjective in -e: singular and plural (`verde verdi`). */
const adjectiveE = (stem: string): string[] => [`${stem}e`, `${stem}i`];
/** A colour's forms (masculine and feminine, singular and plural) with a qualifier in -o agreeing: `grigio scuro`, `grigia scura`. */
const qualified = (forms: readonly [string, string, string, string], qualifier: string): string[] => {
  const q = adjective(qualifier);
  return forms.map((f, i) => `${f} ${q[i]}`);
};
/** An invariable colour (`blu`, `rosa`) with a qualifier in -o in its four forms: `blu scuro`, `blu scura`, `blu scuri`, `blu scure`. */
const invariable = (colour: string, qualifier: string): string[] => qualified([colour, colour, colour, colour], qualifier);

const grigio = ['grigio', 'grigia', 'grigi', 'grigie'] as const;
const verde = ['verde', 'verde', 'verdi', 'verdi'] as const;
const marrone = ['marrone', 'marrone', 'marroni', 'marroni'] as const;
const azzurro = ['azzurro', 'azzurra', 'azzurri', 'azzurre'] as const;
const uniq = (forms: readonly string[]): string[] => [...new Set(forms)];

export const it: LanguageWords = {
  objects: {
    person: ['persona', 'persone', 'gente', 'uomo', 'uomini', 'donna', 'donne', 'ragazzo', 'ragazzi', 'ragazza', 'ragazze', 'bambino', 'bambini', 'bambina', 'bambine', 'bimbi', 'bimba', 'bimbe', 'ritratto', 'ritratti', 'gruppo'],
    bicycle: ['bicicletta', 'biciclette', 'bici'],
    car: ['auto', 'automobile', 'automobili', 'macchina', 'macchine', 'macchinina', 'vettura', 'vetture'],
    motorcycle: ['moto', 'motocicletta', 'motociclette', 'motociclo', 'motorino', 'motorini', 'scooter'],
    airplane: ['aereo', 'aerei', 'aeroplano', 'aeroplani', 'velivolo', 'aereo di linea', 'jet'],
    bus: ['autobus', 'pullman', 'corriera', 'bus'],
    train: ['treno', 'treni', 'locomotiva', 'locomotive', 'trenino'],
    truck: ['camion', 'camioncino', 'furgone', 'furgoni'],
    boat: ['barca', 'barche', 'nave', 'navi', 'battello', 'battelli', 'barchetta', 'veliero', 'gommone', 'yacht'],
    'traffic light': ['semaforo', 'semafori'],
    'fire hydrant': ['idrante', 'idranti', 'idrante antincendio'],
    'stop sign': ['segnale di stop', 'cartello di stop', 'cartello stop', 'stop'],
    'parking meter': ['parchimetro', 'parchimetri'],
    bench: ['panchina', 'panchine', 'panca', 'panche'],
    bird: ['uccello', 'uccelli', 'uccellino', 'uccellini'],
    cat: ['gatto', 'gatti', 'gatta', 'gatte', 'gattino', 'gattini', 'gattina', 'micio', 'micino'],
    dog: ['cane', 'cani', 'cagnolino', 'cagnolini', 'cagnolina', 'cucciolo', 'cuccioli', 'cagna'],
    horse: ['cavallo', 'cavalli', 'cavalla', 'puledro', 'pony'],
    sheep: ['pecora', 'pecore', 'agnello', 'agnelli'],
    cow: ['mucca', 'mucche', 'vacca', 'vacche', 'toro', 'tori', 'vitello', 'vitelli', 'bovini'],
    elephant: ['elefante', 'elefanti', 'elefantino'],
    bear: ['orso', 'orsi', 'orsa'],
    zebra: ['zebra', 'zebre'],
    giraffe: ['giraffa', 'giraffe'],
    backpack: ['zaino', 'zaini', 'zainetto', 'zainetti'],
    umbrella: ['ombrello', 'ombrelli', 'ombrellino', 'ombrellone', 'ombrelloni', 'parasole'],
    handbag: ['borsa', 'borse', 'borsetta', 'borsette', 'borsa a mano', 'borsa a tracolla', 'tracolla', 'pochette', 'borsellino'],
    tie: ['cravatta', 'cravatte', 'cravattino'],
    suitcase: ['valigia', 'valigie', 'valige', 'bagaglio', 'bagagli', 'trolley da viaggio'],
    frisbee: ['frisbee', 'disco volante'],
    skis: ['sci', 'paio di sci'],
    snowboard: ['snowboard', 'tavola da snowboard'],
    'sports ball': ['palla', 'palle', 'pallone', 'palloni', 'pallina', 'palline', 'pallone da calcio'],
    kite: ['aquilone', 'aquiloni'],
    'baseball bat': ['mazza da baseball', 'mazze da baseball', 'mazza'],
    'baseball glove': ['guanto da baseball', 'guantone da baseball', 'guanti da baseball'],
    skateboard: ['skateboard', 'skate'],
    surfboard: ['tavola da surf', 'tavole da surf'],
    'tennis racket': ['racchetta', 'racchette', 'racchetta da tennis'],
    bottle: ['bottiglia', 'bottiglie', 'bottiglietta', 'borraccia', 'borracce'],
    'wine glass': ['bicchiere', 'bicchieri', 'bicchiere da vino', 'bicchieri da vino', 'calice', 'calici'],
    cup: ['tazza', 'tazze', 'tazzina', 'tazzine', 'mug', 'boccale'],
    fork: ['forchetta', 'forchette'],
    knife: ['coltello', 'coltelli'],
    spoon: ['cucchiaio', 'cucchiai', 'cucchiaino', 'cucchiaini'],
    bowl: ['ciotola', 'ciotole', 'ciotolina', 'scodella', 'scodelle'],
    banana: ['banana', 'banane'],
    apple: ['mela', 'mele'],
    sandwich: ['panino', 'panini', 'tramezzino', 'tramezzini', 'sandwich'],
    orange: ['arancia', 'arance'],
    broccoli: ['broccolo', 'broccoli'],
    carrot: ['carota', 'carote'],
    'hot dog': ['hot dog', 'hotdog'],
    pizza: ['pizza', 'pizze', 'pizzetta'],
    donut: ['ciambella', 'ciambelle', 'ciambellina', 'bombolone', 'bomboloni', 'donut'],
    cake: ['torta', 'torte', 'tortina', 'crostata', 'pan di spagna'],
    chair: ['sedia', 'sedie', 'seggiola', 'poltrona', 'poltrone', 'sgabello', 'sgabelli'],
    couch: ['divano', 'divani', 'divanetto', 'sofà', 'divano letto'],
    'potted plant': ['pianta', 'piante', 'piantina', 'piantine', 'pianta in vaso', 'piante in vaso', 'pianta da appartamento'],
    bed: ['letti', 'lettino', 'lettini', 'letto matrimoniale', 'letto singolo', 'letto a castello', 'letto contenitore', 'letto a una piazza', 'struttura letto', 'letti singoli', 'letti a castello'],
    'dining table': ['tavolo', 'tavoli', 'tavolino', 'tavolini', 'tavolo da pranzo'],
    toilet: ['gabinetto', 'gabinetti', 'wc', 'tazza del water', 'vaso sanitario'],
    tv: ['televisore', 'televisori', 'televisione', 'tv', 'tivù'],
    laptop: ['portatile', 'portatili', 'laptop', 'computer portatile', 'pc portatile'],
    mouse: ['mouse', 'mouse del computer'],
    remote: ['telecomando', 'telecomandi'],
    keyboard: ['tastiera', 'tastiere'],
    'cell phone': ['cellulare', 'cellulari', 'telefono', 'telefoni', 'telefonino', 'smartphone', 'telefono cellulare'],
    microwave: ['microonde', 'forno a microonde', 'forno microonde'],
    oven: ['forno', 'forni', 'fornello', 'fornelli', 'cucina a gas'],
    toaster: ['tostapane'],
    sink: ['lavandino', 'lavandini', 'lavello', 'lavelli', 'lavabo'],
    refrigerator: ['frigorifero', 'frigoriferi', 'frigo'],
    book: ['libro', 'libri'],
    clock: ['orologio', 'orologi', 'sveglia', 'sveglie', 'orologio da parete'],
    vase: ['vaso', 'vasi', 'vasetto', 'vaso di fiori'],
    scissors: ['forbici', 'forbice', 'forbicine'],
    'teddy bear': ['orsacchiotto', 'orsacchiotti', 'orsetto', 'orsetti', 'peluche', 'orsetto di peluche'],
    'hair drier': ['asciugacapelli', 'phon', 'fon', 'föhn'],
    toothbrush: ['spazzolino', 'spazzolini', 'spazzolino da denti'],
  },
  colors: {
    black: adjective('ner'),
    charcoal: ['antracite', 'grigio antracite', 'grigio carbone', 'grigio fumo'],
    'dark grey': [...qualified(grigio, 'scur'), 'fumo di londra'],
    grey: [...grigio],
    'light grey': [...qualified(grigio, 'chiar'), 'grigio perla', 'argento', ...adjective('argentat')],
    white: adjective('bianc'),
    ivory: ['avorio', 'bianco avorio', 'bianco sporco'],
    beige: ['beige', 'sabbia', 'color sabbia'],
    taupe: ['tortora', 'color tortora', 'grigio tortora', 'grigio talpa', 'taupe'],
    camel: ['cammello', 'color cammello', 'camel'],
    khaki: ['cachi', 'kaki', 'khaki'],
    brown: uniq([...marrone, ...adjective('brun'), ...adjective('castan')]),
    'dark brown': [...uniq(qualified(marrone, 'scur')), 'testa di moro', 'cioccolato', 'color cioccolato'],
    rust: ['ruggine', 'color ruggine', 'terracotta', 'rosso mattone', 'color mattone'],
    red: adjective('ross'),
    burgundy: ['bordeaux', 'rosso bordeaux', 'vinaccia', 'rosso vino', 'granata'],
    coral: ['corallo', 'color corallo', 'rosso corallo'],
    rose: ['rosa antico', 'rosa cipria', 'cipria'],
    pink: ['rosa', 'rosato', 'rosata'],
    'hot pink': ['fucsia', 'rosa shocking', 'rosa acceso', 'rosa fluo'],
    magenta: ['magenta'],
    peach: ['color pesca', 'rosa pesca', 'albicocca', 'color albicocca'],
    orange: [...adjectiveE('arancion'), 'arancio', 'color arancia', 'colore arancia'],
    mustard: ['senape', 'giallo senape', 'ocra'],
    gold: ['oro', 'color oro', ...adjective('dorat')],
    yellow: adjective('giall'),
    cream: ['panna', 'color panna', 'bianco panna', 'color crema', 'colore crema', 'bianco crema', 'écru'],
    olive: ['verde oliva', 'oliva', 'verde militare'],
    'lime green': ['verde lime', 'lime', 'verde acido', 'verde mela'],
    green: ['verde', 'verdi'],
    'dark green': [...uniq(qualified(verde, 'scur')), 'verde bottiglia', 'verde bosco', 'verde inglese', 'verde foresta'],
    sage: ['verde salvia', 'salvia'],
    mint: ['verde menta', 'menta'],
    teal: ['ottanio', 'verde petrolio', 'blu petrolio'],
    turquoise: [...adjectiveE('turches'), 'verde acqua', 'acquamarina', 'ciano'],
    'light blue': [...azzurro, 'azzurrino', 'celeste', 'celesti', ...invariable('blu', 'chiar'), ...qualified(azzurro, 'chiar')],
    'sky blue': ['azzurro cielo', 'blu cielo', 'carta da zucchero'],
    blue: ['blu', 'bluette'],
    denim: ['denim', 'blu denim', 'blu jeans'],
    'navy blue': ['blu navy', 'navy', 'blu notte', 'blu marino', ...invariable('blu', 'scur')],
    purple: ['viola', 'porpora', 'purpureo', ...adjective('violett')],
    lavender: ['lavanda', 'lilla', 'glicine', 'color lavanda'],
    plum: ['prugna', 'color prugna', 'melanzana', 'viola scuro'],
    mauve: ['malva', 'mauve'],
  },
  items: {
    'upper body': ['camicia', 'camicie', 'camicetta', 'camicette', 'maglietta', 'magliette', 't-shirt', 'maglia', 'maglie', 'maglione', 'maglioni', 'felpa', 'felpe', 'giacca', 'giacche', 'giubbotto', 'giubbotti', 'giubbino', 'cappotto', 'cappotti', 'giaccone', 'piumino', 'piumini', 'cardigan', 'gilet', 'canotta', 'canottiera', 'top', 'blusa'],
    'lower body': ['pantaloni', 'pantalone', 'pantaloncini', 'jeans', 'gonna', 'gonne', 'minigonna', 'gonnellina', 'shorts', 'leggings', 'leggins'],
    'full body': ['vestito', 'vestiti', 'vestitino', 'abito', 'abiti', 'abitino', 'tuta', 'tute', 'salopette', 'jumpsuit'],
    footwear: ['scarpa', 'scarpe', 'scarpetta', 'scarpette', 'sneakers', 'stivale', 'stivali', 'stivaletto', 'stivaletti', 'sandali', 'tacchi', 'tacchi alti', 'mocassini', 'ciabatte', 'infradito', 'calzature', 'scarponi'],
  },
  people: {
    face: ['viso', 'visi', 'volto', 'volti', 'faccia', 'facce'],
  },
};
