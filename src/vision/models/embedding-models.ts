import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import type { GraphModel, LayersModel, Tensor, Tensor4D } from '@tensorflow/tfjs';
import { modelArtifacts, nodeRequire, packageDir, packageVersion, tfjs, type ModelFiles, type ModelJson, type RgbPixels, type Tf } from '../engine/tfjs-runtime.ts';

/**
 * Generic image embeddings from weights shipped inside installed npm packages (nothing is
 * downloaded). docs/models.md has the comparison behind the default.
 *
 * - `mobilenet_v2`: nsfwjs' Keras MobileNetV2 (1.0, 224), pooled 1280-d layer `flatten_1`.
 * - `mobilenet_v2_mid`: nsfwjs' graph model, a TF-Hub MobileNetV2 1.4 feature vector (1792-d,
 *   uint8-quantised weights) under a 5-way head; we read the hub layer's output.
 * - `inception_v3`: nsfwjs' Keras InceptionV3 (299), pooled 2048-d layer `flatten_1`.
 * - `centernet`: the MobileNetV3 backbone of @vladmandic/human's COCO CenterNet detector (512),
 *   global mean of its last backbone map (480-d). Detection-trained, kept for comparison only.
 */
import { defaultEmbedder, embedderNames, type EmbedderName } from './embedder-names.ts';

export { defaultEmbedder, embedderNames, type EmbedderName };


export interface EmbedderOptions {
  /** `squash`: whole image stretched to the square input (what nsfwjs does). `crop`: centre square. */
  fit?: 'squash' | 'crop';
  /** Pixel scaling: `unit` = /255 (nsfwjs and TF-Hub), `signed` = [-1, 1] (Keras applications), `raw` = 0..255. */
  range?: 'unit' | 'signed' | 'raw';
  /** `sharp`: antialiased Lanczos reduction. `tf`: bilinear in the graph, as nsfwjs does; aliases on large inputs. */
  resize?: 'sharp' | 'tf';
}

export interface Embedder {
  /**
   * Identifies the vector space, e.g. `mobilenet_v2_mid-nsfwjs-4.4.0/feature_vector`: vectors are
   * comparable only when their names are equal. Non-default options are appended (`#crop,unit,sharp`).
   */
  name: string;
  model: EmbedderName;
  dim: number;
  inputSize: number;
  options: Required<EmbedderOptions>;
  /**
   * L2-normalised; cosine similarity is then a dot product. Any size is accepted, but the decode
   * size is part of the vector space: long edges of 448 and 640 give the same vectors (cosine
   * ≥ 0.999), 224 does not (down to 0.82).
   */
  embed(img: RgbPixels): Promise<Float32Array>;
  dispose(): void;
}

interface Spec {
  kind: 'layers' | 'graph';
  pkg: string;
  inputSize: number;
  /** Layers: layer name. Graph: node name (its output is pooled over H and W when 4-D). */
  output: string;
  /** Short label for the name string. */
  layerLabel: string;
  defaults: Required<EmbedderOptions>;
  files: (pkgDir: string) => ModelFiles;
}


/** nsfwjs ships its models as CommonJS `.min.js` modules (JSON, and one base64 string per shard) so bundlers can inline them. */
const nsfwjsFiles = (model: string) => (pkgDir: string): ModelFiles => {
  const dir = path.join(pkgDir, 'dist', 'models', model);
  return {
    json: () => nodeRequire(path.join(dir, 'model.min.js')) as ModelJson,
    shard: (p) => Buffer.from(nodeRequire(path.join(dir, `${p}.min.js`)) as string, 'base64'),
  };
};

const humanFiles = (model: string) => (pkgDir: string): ModelFiles => {
  const dir = path.join(pkgDir, 'models');
  return {
    json: () => JSON.parse(fs.readFileSync(path.join(dir, `${model}.json`), 'utf8')) as ModelJson,
    shard: (p) => fs.readFileSync(path.join(dir, p)),
  };
};

const specs: Record<EmbedderName, Spec> = {
  mobilenet_v2: {
    kind: 'layers',
    pkg: 'nsfwjs',
    inputSize: 224,
    output: 'flatten_1',
    layerLabel: 'flatten_1',
    defaults: { fit: 'squash', range: 'unit', resize: 'sharp' },
    files: nsfwjsFiles('mobilenet_v2'),
  },
  mobilenet_v2_mid: {
    kind: 'graph',
    pkg: 'nsfwjs',
    inputSize: 224,
    output: 'StatefulPartitionedCall/sequential/keras_layer/StatefulPartitionedCall/StatefulPartitionedCall/StatefulPartitionedCall/predict/feature_vector/SpatialSqueeze',
    layerLabel: 'feature_vector',
    // TF-Hub image modules take [0, 1] by contract.
    defaults: { fit: 'squash', range: 'unit', resize: 'sharp' },
    files: nsfwjsFiles('mobilenet_v2_mid'),
  },
  inception_v3: {
    kind: 'layers',
    pkg: 'nsfwjs',
    inputSize: 299,
    output: 'flatten_1',
    layerLabel: 'flatten_1',
    defaults: { fit: 'squash', range: 'unit', resize: 'sharp' },
    files: nsfwjsFiles('inception_v3'),
  },
  centernet: {
    kind: 'graph',
    pkg: '@vladmandic/human',
    inputSize: 512,
    output: 'tower_0/extern1/hard_swish/mul_1',
    layerLabel: 'extern1-mean',
    // Human feeds this model 0..255 floats; the graph has no normalisation of its own.
    defaults: { fit: 'squash', range: 'raw', resize: 'sharp' },
    files: humanFiles('centernet'),
  },
};



/** Centre square of the image, as [top, left, side]. */
function centreSquare(img: RgbPixels): [number, number, number] {
  const side = Math.min(img.width, img.height);
  return [Math.floor((img.height - side) / 2), Math.floor((img.width - side) / 2), side];
}

async function sharpResize(img: RgbPixels, size: number, fit: 'squash' | 'crop'): Promise<Uint8Array> {
  const out = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } })
    .resize(size, size, { fit: fit === 'crop' ? 'cover' : 'fill', position: 'centre' })
    .raw()
    .toBuffer();
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/**
 * Loads one embedding model into this thread's tfjs and returns its embedder. Each call loads its
 * own copy of the weights: load once per worker and reuse.
 */
export async function loadEmbedder(model: EmbedderName = defaultEmbedder, options: EmbedderOptions = {}): Promise<Embedder> {
  const spec = specs[model];
  if (!spec) throw new Error(`unknown embedder ${String(model)}; known: ${embedderNames.join(', ')}`);
  const tf = await tfjs();
  const opts: Required<EmbedderOptions> = { ...spec.defaults, ...options };
  const pkgDir = packageDir(spec.pkg);
  const artifacts = modelArtifacts(spec.files(pkgDir));
  const handler = { load: () => Promise.resolve(artifacts) };
  const size = spec.inputSize;

  let run: (x: Tensor4D) => Tensor;
  let release: () => void;
  if (spec.kind === 'layers') {
    const full: LayersModel = await tf.loadLayersModel(handler);
    // The cut model shares the full model's layers and weights; disposing `full` frees them.
    const cut = tf.model({ inputs: full.inputs, outputs: full.getLayer(spec.output).output });
    run = (x) => cut.predict(x) as Tensor;
    release = () => full.dispose();
  } else {
    const graph: GraphModel = await tf.loadGraphModel(handler);
    // Naming an inner node makes the executor run only the subgraph that node depends on.
    run = (x) => graph.execute(x, spec.output) as Tensor;
    release = () => graph.dispose();
  }

  const defaultsUsed = opts.fit === spec.defaults.fit && opts.range === spec.defaults.range && opts.resize === spec.defaults.resize;
  const name = `${model}-${spec.pkg.replace(/^@[^/]+\//, '')}-${packageVersion(pkgDir)}/${spec.layerLabel}${defaultsUsed ? '' : `#${opts.fit},${opts.range},${opts.resize}`}`;

  const toInput = (tfi: Tf, pixels: Uint8Array, h: number, w: number, img: RgbPixels): Tensor4D => {
    let x = tfi.tensor3d(pixels, [h, w, 3], 'int32').toFloat();
    if (opts.resize === 'tf') {
      if (opts.fit === 'crop') {
        const [top, left, side] = centreSquare(img);
        x = x.slice([top, left, 0], [side, side, 3]);
      }
      if (x.shape[0] !== size || x.shape[1] !== size) x = tfi.image.resizeBilinear(x, [size, size], true);
    }
    if (opts.range === 'unit') x = x.div(255);
    else if (opts.range === 'signed') x = x.div(127.5).sub(1);
    return x.expandDims(0) as Tensor4D;
  };

  let disposed = false;
  const embedder: Embedder = {
    name,
    model,
    dim: 0,
    inputSize: size,
    options: opts,
    async embed(img) {
      if (disposed) throw new Error(`embedder ${name} is disposed`);
      if (img.data.length !== img.width * img.height * 3) throw new Error(`expected ${img.width}×${img.height}×3 bytes, got ${img.data.length}`);
      const pixels = opts.resize === 'sharp' ? await sharpResize(img, size, opts.fit) : img.data;
      const [h, w] = opts.resize === 'sharp' ? [size, size] : [img.height, img.width];
      const out = tf.tidy(() => {
        let y = run(toInput(tf, pixels, h, w, img));
        if (y.rank === 4) y = y.mean([1, 2]);
        // The epsilon keeps an all-zero activation (a blank image can give one) from becoming NaN.
        return y.reshape([-1]).div(y.norm().add(1e-12));
      });
      try {
        return (await out.data()) as Float32Array;
      } finally {
        out.dispose();
      }
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      release();
    },
  };
  // One warm-up pass: the first inference compiles kernels (seconds for InceptionV3), and it tells us the dimension.
  const probe = await embedder.embed({ data: new Uint8Array(size * size * 3).fill(128), width: size, height: size });
  embedder.dim = probe.length;
  return embedder;
}
