import type { LanguageWords } from './concepts.ts';
import { formsOnce } from './forms-once.ts';

/**
 * Turkish. Nouns bare and with the plural suffix (`köpek köpekler`, `araba arabalar`: -ler/-lar by vowel harmony), and
 * with the third-person suffix shop titles put on the head of a compound (`el çantası`, `kol saati`, `yemek masası`,
 * `spor ayakkabısı`) or the accusative (`köpeği`). Colour words do not inflect before a noun (`kırmızı araba`); the
 * phrases shops use for shades are listed whole (`gök mavisi`, `zeytin yeşili`, `gül kurusu`). Written with Turkish
 * letters; the fold makes ı, ş, ğ, ç, ö, ü plain i, s, g, c, o, u on both sides, so `kirmizi` finds `kırmızı` and a
 * capital `KIRMIZI` its lower case. Not yet reviewed by a native speaker (docs/text-search.md).
 *
 * Left out because they are common English words, or another lexicon language's, with another meaning: at (horse; an
 * English stop word: `atlar` is kept), it (dog), bank (bench: `park bankı` is kept), kayak (ski: a kayak in English),
 * pasta (cake), fare (mouse: English "fare", Italian "fare"), sopa (bat: Spanish soup), şort (shorts: folds to "sort";
 * `şortlar` kept), motor, ocak (stove; also January), filler (elephants: English "filler"), kara (black), tır (lorry:
 * French "tir"), bebek (baby, doll), sandal (a rowboat; an English sandal), okra (ochre; the vegetable), tost (a
 * toasted sandwich; toast), krem (cream; the cosmetic: `krem rengi` kept), saat and saati alone (clock, also hour: "24 saat
 * içinde kargo", h197; `saatler`, `kol saati`, `duvar saati` kept), yüz and yüzü alone (face, also hundred and side: "yüz
 * lira", "ön yüz"; `yüzler`, `insan yüzü` kept). Forms that fold to another
 * language's everyday word are the language's own only (`ownLanguageOnly` in lexicon.ts): `sarı` (folds to "sari", the
 * garment), `fil` (French "fil", thread: "sans fil"), `mont` (French "mont"), `adam` (a given name), `jean` (a given
 * name), `kase` (German "Käse"), `masa` (Polish "masa", mass: "masa 2 kg"; Spanish dough), `füme` ("fume", French
 * "fumé"), `surat` (the Indian textile city). `kot` (denim, read as the denim colour: `kot ceket`, `kot pantolon`) is a cat in Polish and `top` (ball) an
 * upper-body garment in English: the query's language decides.
 */

const vowelsOf = (word: string): string[] => word.match(/[aıoueiâîöüû]/g) ?? [];
// Loanwords that take front-vowel suffixes after a back vowel (saatler, saati), and those whose last k, p or ç does not soften
const frontSuffixes: ReadonlySet<string> = new Set(['saat']);
const keepsLastConsonant: ReadonlySet<string> = new Set(['sandviç', 'laptop']);
const softensAlone: ReadonlySet<string> = new Set(['grup']);
/** The last vowel as the suffixes hear it. */
const lastVowel = (word: string): string => (frontSuffixes.has(word) ? 'e' : (vowelsOf(word).pop() ?? 'e').replace('â', 'a').replace('î', 'i').replace('û', 'u'));
/** The plural by vowel harmony: -lar after a back vowel (a ı o u), -ler after a front one (and after saat). */
const plural = (word: string): string => word + (/[aıou]/.test(lastVowel(word)) ? 'lar' : 'ler');
/**
 * The third-person possessive, which is also the accusative of a word ending in a consonant: -ı -i -u -ü by vowel harmony,
 * -sı -si -su -sü after a vowel (`araba` → arabası, `kedi` → kedisi), a final k, p, ç softening to ğ, b, c in a word of
 * more than one syllable (`köpek` → köpeği, `kitap` → kitabı, `havuç` → havucu; `grup` → grubu).
 */
const possessive = (word: string): string => {
  const v = ({ a: 'ı', ı: 'ı', o: 'u', u: 'u', e: 'i', i: 'i', ö: 'ü', ü: 'ü' } as Record<string, string>)[lastVowel(word)] ?? 'i';
  if (/[aıoueiâîöüû]$/.test(word)) return `${word}s${v}`;
  const softens = (vowelsOf(word).length > 1 || softensAlone.has(word)) && !keepsLastConsonant.has(word);
  const stem = softens ? word.replace(/nk$/, 'ng').replace(/k$/, 'ğ').replace(/p$/, 'b').replace(/ç$/, 'c') : word;
  return stem + v;
};
/** The plural's possessive (`uçaklar` → uçakları, `kediler` → kedileri: "their planes", and a title's "X uçakları"). */
const pluralPossessive = (word: string): string => `${plural(word)}${/[aıou]/.test(lastVowel(word)) ? 'ı' : 'i'}`;
/** A noun in the forms queries and titles use: bare, plural, possessive (or accusative) and the plural's possessive. */
const noun = (...words: string[]): string[] => words.flatMap((w) => [w, plural(w), possessive(w), pluralPossessive(w)]);

const written: LanguageWords = {
  objects: {
    person: [...noun('insan', 'kişi', 'kadın', 'kız', 'çocuk', 'erkek', 'grup'), ...noun('bayan', 'oğlan', 'portre'), 'adam', 'adamlar', 'erkek çocuk', 'kız çocuk', 'selfie'],
    bicycle: [...noun('bisiklet'), 'bisikleti'],
    car: [...noun('araba', 'otomobil'), 'arabası', 'oto'],
    motorcycle: [...noun('motosiklet', 'motorsiklet'), 'motosikleti', 'scooter'],
    airplane: [...noun('uçak'), 'uçağı', 'yolcu uçağı'],
    bus: [...noun('otobüs'), 'otobüsü'],
    train: [...noun('tren', 'lokomotif')],
    truck: [...noun('kamyon', 'kamyonet'), 'kamyonu'],
    boat: [...noun('tekne', 'gemi', 'yat', 'yelkenli'), 'sürat teknesi'],
    'traffic light': ['trafik ışığı', 'trafik ışıkları', 'trafik lambası', 'trafik lambaları'],
    'fire hydrant': ['yangın musluğu', 'yangın muslukları', 'hidrant', 'yangın hidrantı'],
    'stop sign': ['dur işareti', 'dur tabelası', 'dur levhası'],
    'parking meter': [...noun('parkmetre'), 'otopark sayacı', 'park sayacı'],
    bench: ['banklar', 'park bankı', 'bahçe bankı', 'oturma bankı'],
    bird: [...noun('kuş'), 'kuşu'],
    cat: [...noun('kedi'), 'kedisi', 'yavru kedi', 'kedicik'],
    dog: [...noun('köpek'), 'köpeği', 'köpekli', 'yavru köpek', 'köpekçik'],
    horse: ['atlar', 'atı', 'atları', ...noun('midilli', 'kısrak'), 'yarış atı'],
    sheep: [...noun('koyun', 'kuzu')],
    cow: [...noun('inek', 'sığır', 'boğa', 'buzağı')],
    elephant: ['fil', 'yavru fil', 'fil heykeli'],
    bear: [...noun('ayı'), 'ayısı', 'boz ayı', 'kutup ayısı'],
    zebra: [...noun('zebra')],
    giraffe: [...noun('zürafa')],
    backpack: ['sırt çantası', 'sırt çantaları', 'sırt çanta'],
    umbrella: [...noun('şemsiye'), 'şemsiyesi'],
    handbag: [...noun('çanta'), 'çantası', 'el çantası', 'el çantaları', 'omuz çantası', 'kadın çanta', 'kadın çantası'],
    tie: [...noun('kravat'), 'kravatı'],
    suitcase: [...noun('bavul', 'valiz'), 'valizi', 'bavulu'],
    frisbee: ['frizbi', 'frisbee', 'uçan daire'],
    skis: ['kayaklar', 'kayakları', 'kayak takımı', 'kayağı'],
    snowboard: ['snowboard', 'kar kaykayı'],
    'sports ball': [...noun('top'), 'topu', 'futbol topu', 'basketbol topu'],
    kite: [...noun('uçurtma'), 'uçurtması'],
    'baseball bat': ['beyzbol sopası', 'beyzbol sopaları'],
    'baseball glove': ['beyzbol eldiveni', 'beyzbol eldivenleri'],
    skateboard: [...noun('kaykay'), 'skateboard'],
    surfboard: ['sörf tahtası', 'sörf tahtaları'],
    'tennis racket': ['tenis raketi', 'tenis raketleri', ...noun('raket')],
    bottle: [...noun('şişe'), 'şişesi'],
    'wine glass': ['şarap kadehi', 'şarap kadehleri', ...noun('kadeh'), 'kadehi'],
    cup: [...noun('bardak', 'fincan', 'kupa'), 'bardağı', 'fincanı', 'kahve fincanı', 'çay bardağı'],
    fork: [...noun('çatal'), 'çatalı'],
    knife: [...noun('bıçak'), 'bıçağı'],
    spoon: [...noun('kaşık'), 'kaşığı'],
    bowl: [...noun('kâse', 'çanak')],
    banana: [...noun('muz')],
    apple: [...noun('elma')],
    sandwich: [...noun('sandviç'), 'sandviçi'],
    orange: [...noun('portakal')],
    broccoli: ['brokoli'],
    carrot: [...noun('havuç'), 'havucu'],
    'hot dog': ['sosisli', 'sosisli sandviç', 'hot dog', 'hotdog'],
    pizza: [...noun('pizza')],
    donut: [...noun('donut'), 'halka tatlı'],
    cake: [...noun('kek'), 'yaş pasta', 'doğum günü pastası', 'pasta dilimi'],
    chair: [...noun('sandalye', 'koltuk', 'tabure', 'berjer')],
    couch: [...noun('kanepe', 'çekyat'), 'kanepesi', 'koltuk takımı'],
    'potted plant': [...noun('bitki', 'saksı'), 'saksı bitkisi', 'saksı çiçeği', 'ev bitkisi', 'ev bitkileri'],
    bed: [...noun('yatak', 'karyola'), 'yatağı'],
    'dining table': [...noun('masa', 'sehpa'), 'yemek masası', 'yemek masaları'],
    toilet: [...noun('tuvalet', 'klozet'), 'wc'],
    tv: [...noun('televizyon'), 'televizyonu', 'tv'],
    laptop: [...noun('laptop'), 'dizüstü bilgisayar', 'dizüstü'],
    mouse: ['bilgisayar faresi', 'mouse'],
    remote: [...noun('kumanda'), 'kumandası', 'uzaktan kumanda'],
    keyboard: [...noun('klavye'), 'klavyesi'],
    'cell phone': [...noun('telefon'), 'telefonu', 'cep telefonu', 'cep telefonları', 'akıllı telefon', 'akıllı telefonlar'],
    microwave: ['mikrodalga', 'mikrodalga fırın', 'mikrodalgalar'],
    oven: [...noun('fırın'), 'fırını', 'ankastre fırın'],
    toaster: ['tost makinesi', 'ekmek kızartma makinesi', 'tost makineleri'],
    sink: [...noun('lavabo', 'evye'), 'lavabosu'],
    refrigerator: ['buzdolabı', 'buzdolapları', 'buzdolabını'],
    book: [...noun('kitap'), 'kitabı'],
    clock: [...noun('saat').filter((f) => f !== 'saat' && f !== 'saati'), 'duvar saati', 'duvar saatleri', 'kol saati', 'kol saatleri', 'masa saati', 'masa saatleri', 'çalar saat', 'cep saati'],
    vase: [...noun('vazo'), 'vazosu'],
    scissors: [...noun('makas'), 'makası'],
    'teddy bear': ['oyuncak ayı', 'peluş ayı', 'pelüş ayı', 'ayıcık', 'peluş oyuncak', 'pelüş'],
    'hair drier': ['saç kurutma makinesi', 'fön makinesi', 'saç kurutma'],
    toothbrush: ['diş fırçası', 'diş fırçaları'],
  },
  colors: {
    black: ['siyah', 'siyahı'],
    charcoal: ['antrasit', 'füme', 'koyu füme'],
    'dark grey': ['koyu gri'],
    grey: ['gri', 'grisi'],
    'light grey': ['açık gri', 'gümüş', 'gümüş rengi', 'gümüşi'],
    white: ['beyaz', 'beyazı'],
    ivory: ['fildişi', 'kırık beyaz', 'ekru'],
    beige: ['bej', 'ten rengi'],
    taupe: ['vizon', 'vizon rengi'],
    camel: ['taba', 'deve tüyü', 'camel'],
    khaki: ['haki'],
    brown: ['kahverengi', 'kahve rengi', 'kahverengisi'],
    'dark brown': ['koyu kahverengi', 'koyu kahve', 'çikolata rengi', 'acı kahve'],
    rust: ['kiremit', 'kiremit rengi', 'pas rengi', 'tarçın rengi', 'terrakota'],
    red: ['kırmızı', 'kırmızısı'],
    burgundy: ['bordo', 'şarap kırmızısı', 'vişne çürüğü', 'vişne'],
    coral: ['mercan', 'mercan rengi'],
    rose: ['gül kurusu', 'pudra', 'pudra pembe', 'toz pembe'],
    pink: ['pembe', 'pembesi', 'açık pembe'],
    'hot pink': ['fuşya', 'fuşya pembe', 'neon pembe', 'koyu pembe'],
    magenta: ['magenta'],
    peach: ['şeftali', 'şeftali rengi', 'kayısı rengi', 'somon'],
    orange: ['turuncu', 'turuncusu', 'oranj'],
    mustard: ['hardal', 'hardal sarısı', 'hardal rengi', 'aşı boyası'],
    gold: ['altın', 'altın rengi', 'altın sarısı', 'gold'],
    yellow: ['sarı', 'sarısı', 'limon sarısı'],
    cream: ['krem rengi', 'kemik rengi', 'ekru beyaz'],
    olive: ['zeytin yeşili', 'zeytin', 'haki yeşil'],
    'lime green': ['fıstık yeşili', 'neon yeşil', 'açık yeşil', 'limon yeşili'],
    green: ['yeşil', 'yeşili'],
    'dark green': ['koyu yeşil', 'zümrüt yeşili', 'çam yeşili', 'nefti', 'şişe yeşili'],
    sage: ['adaçayı yeşili', 'çağla yeşili', 'adaçayı'],
    mint: ['mint', 'mint yeşili', 'nane yeşili'],
    teal: ['petrol', 'petrol mavisi', 'petrol yeşili', 'çam mavisi'],
    turquoise: ['turkuaz', 'turkuvaz', 'camgöbeği', 'cyan'],
    'light blue': ['açık mavi', 'bebek mavisi', 'buz mavisi'],
    'sky blue': ['gök mavisi', 'gökyüzü mavisi'],
    blue: ['mavi', 'mavisi'],
    denim: ['kot', 'kot mavisi', 'denim', 'indigo'],
    'navy blue': ['lacivert', 'laciverti', 'koyu mavi', 'gece mavisi', 'navy'],
    purple: ['mor', 'moru', 'eflatun'],
    lavender: ['lila', 'lavanta', 'lavanta rengi', 'leylak'],
    plum: ['mürdüm', 'erik rengi', 'patlıcan moru', 'patlıcan rengi'],
    mauve: ['mauve', 'soluk mor', 'mor kurusu'],
  },
  items: {
    'upper body': [...noun('gömlek', 'tişört', 'bluz', 'kazak', 'hırka', 'ceket', 'kaban', 'palto', 'yelek', 'sweatshirt', 'svetşört', 'mont'), 'gömleği', 't-shirt', 'tshirt', 'üst giyim', 'kapüşonlu'],
    'lower body': [...noun('pantolon', 'etek', 'tayt'), 'jean', 'kot pantolon', 'şortlar', 'şortu', 'şortları', 'eşofman altı'],
    'full body': [...noun('elbise', 'tulum', 'abiye'), 'elbisesi', 'gece elbisesi'],
    footwear: [...noun('ayakkabı', 'bot', 'çizme', 'sandalet', 'terlik', 'sneaker', 'babet'), 'ayakkabısı', 'spor ayakkabı', 'topuklu ayakkabı', 'topuklu', 'sneakers'],
  },
  people: {
    face: ['yüzler', 'yüzleri', 'insan yüzü', 'yüz ifadesi', 'gülen yüz', 'surat', 'çehre'],
  },
};

export const tr: LanguageWords = formsOnce(written);
