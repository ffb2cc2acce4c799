/**
 * A vector as a binary parameter, pgvector's own wire form (`vector_recv`: dimensions and a reserved word as
 * int16, then each float4 big-endian). As text (`[0.0123…,…]`) a 1792-d vector was 38 KB of doubles' digits, written
 * out here (0.5 ms), parsed back by PostgreSQL, and sent twice a search; binary it is 7 KB, copied, and the floats
 * PostgreSQL gets are exactly these (h366). Inserts and updates store a record's vector in it too: an insert of 500
 * records wrote and sent 19 MB of digits.
 */
export function pgVector(v: Float32Array): Buffer {
  const b = Buffer.allocUnsafe(4 + 4 * v.length);
  b.writeInt16BE(v.length, 0);
  b.writeInt16BE(0, 2);
  for (let i = 0; i < v.length; i++) b.writeFloatBE(v[i]!, 4 + 4 * i);
  return b;
}

/** A stored vector read in that form (`vector_send`, a bytea): its floats exactly, not their decimal text parsed as doubles. */
export function fromPgVector(b: Uint8Array): Float32Array {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const v = new Float32Array(view.getInt16(0));
  for (let i = 0; i < v.length; i++) v[i] = view.getFloat32(4 + 4 * i);
  return v;
}
