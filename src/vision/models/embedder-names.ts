/** The embedders `LOUPE_EMBEDDER` may name (docs/models.md); apart from the models so settings can check a name without loading them. */
export const embedderNames = ['mobilenet_v2', 'mobilenet_v2_mid', 'inception_v3', 'centernet'] as const;
export type EmbedderName = (typeof embedderNames)[number];

/**
 * The hub feature vector inside `mobilenet_v2_mid` kept ImageNet-generic features: best category
 * retrieval and near-duplicate recall of the four, and as fast as the smaller MobileNetV2, whose
 * backbone was fine-tuned towards nsfwjs' five classes (docs/models.md).
 */
export const defaultEmbedder: EmbedderName = 'mobilenet_v2_mid';
