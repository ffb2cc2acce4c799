/** Files from a drop or a picker as the API takes them: base64 JPEG, scaled down where a limit asks. */

export interface PreparedImage {
  name: string;
  base64: string;
  bytes: Uint8Array;
  /** An object URL of the original file, for showing it beside results. */
  preview: string;
  width: number;
  height: number;
}

function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/**
 * `maxEdge` 0 sends the file as it is (grading measures margins in pixels, so it gets the original);
 * otherwise a JPEG no larger than `maxEdge` on its long side. Collection methods take 1 MiB bodies,
 * so a phone photo sent whole is a 413 there.
 */
export async function prepareImage(file: File, maxEdge: number): Promise<PreparedImage> {
  const original = new Uint8Array(await file.arrayBuffer());
  const bitmap = await createImageBitmap(file).catch(() => null);
  const width = bitmap?.width ?? 0;
  const height = bitmap?.height ?? 0;
  let bytes = original;
  if (bitmap && maxEdge > 0 && Math.max(width, height) > maxEdge) {
    const scale = maxEdge / Math.max(width, height);
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    canvas.getContext('2d')!.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/jpeg', 0.9));
    if (blob) bytes = new Uint8Array(await blob.arrayBuffer());
  }
  bitmap?.close();
  return { name: file.name, base64: toBase64(bytes), bytes: original, preview: URL.createObjectURL(file), width, height };
}

/**
 * A part of an image (a detected card) as base64 JPEG, for the session's image of that card. The box
 * is in pixels of the image the server saw, `sentWidth` wide (a scaled-down copy of a large photo);
 * the crop is taken from the original file.
 */
export async function cropToBase64(file: Blob, box: readonly [number, number, number, number], sentWidth: number | undefined, maxEdge = 1024): Promise<string | null> {
  const bitmap = await createImageBitmap(file).catch(() => null);
  if (!bitmap) return null;
  const k = sentWidth ? bitmap.width / sentWidth : 1;
  const [x0, y0, x1, y1] = box.map((v) => v * k) as [number, number, number, number];
  const w = Math.max(1, x1 - x0);
  const h = Math.max(1, y1 - y0);
  const scale = Math.min(1, maxEdge / Math.max(w, h));
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(w * scale);
  canvas.height = Math.round(h * scale);
  canvas.getContext('2d')!.drawImage(bitmap, x0, y0, w, h, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/jpeg', 0.9));
  return blob ? toBase64(new Uint8Array(await blob.arrayBuffer())) : null;
}

export const isImage = (f: File) => /^image\//.test(f.type) || /\.(jpe?g|png|webp|tiff?|gif|avif)$/i.test(f.name);
