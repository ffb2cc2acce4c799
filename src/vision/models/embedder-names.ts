/** The embedders `LOUPE_EMBEDDER` may name (docs/models.md); apart from the models so settings can check a name without loading them. */
export const embedderNames = ['mobilenet_v2', 'mobilenet_v2_mid', 'inception_v3', 'centernet'] as const;
export type EmbedderName = (typeof embedderNames)[number];
