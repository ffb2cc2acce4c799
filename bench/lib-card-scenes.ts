import type { SceneOptions } from '../test/helpers/card-scenes.ts';

/** A phone photo's conditions for a generated card scene: rotation ±15°, perspective, light, blur, noise, size, and the photo behind. */
export const photoOptions = (rand: () => number, background?: Buffer): SceneOptions => ({
  rotationDeg: (rand() - 0.5) * 30,
  perspective: rand() * 0.06,
  light: rand() * 0.5,
  blur: rand() < 0.5 ? 0.3 + rand() * 1.7 : 0,
  noise: rand() * 12,
  size: 0.45 + rand() * 0.35,
  ...(background ? { background } : {}),
});
