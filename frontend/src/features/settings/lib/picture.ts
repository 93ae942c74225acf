/** The server takes a JPEG or PNG data URL of at most 40 KB and 1024 px. */
export const PICTURE_MAX_BYTES = 40 * 1024;
const SIDE = 256;

/** Bytes a base64 data URL carries. */
export function dataUrlBytes(dataUrl: string): number {
  const b64 = dataUrl.slice(dataUrl.indexOf(",") + 1);
  const pad = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
  return Math.floor((b64.length * 3) / 4) - pad;
}

/**
 * Whatever image the user picks becomes a square-cropped 256 px JPEG, its
 * quality lowered until it fits the server's limit; null when the browser
 * cannot read the file as an image.
 */
export async function toAvatarJpeg(file: Blob): Promise<string | null> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    return null;
  }
  const side = Math.min(bitmap.width, bitmap.height);
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = Math.min(SIDE, side);
  const ctx = canvas.getContext("2d");
  if (!ctx) return null;
  ctx.fillStyle = "#fff";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.drawImage(bitmap, (bitmap.width - side) / 2, (bitmap.height - side) / 2, side, side, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  for (let q = 0.85; q >= 0.3; q -= 0.1) {
    const url = canvas.toDataURL("image/jpeg", q);
    if (dataUrlBytes(url) <= PICTURE_MAX_BYTES) return url;
  }
  return null;
}
