/**
 * The smallest key greater than every key that starts with `prefix`, or null when no
 * such key exists (an empty prefix, or a prefix of only 0xff bytes). Keys compare as
 * SQLite compares BLOBs: memcmp, then the shorter first.
 */
export function prefixUpperBound(prefix: Buffer): Buffer | null {
  let end = prefix.length;
  while (end > 0 && prefix[end - 1] === 0xff) end--;
  if (end === 0) return null;
  const bound = Buffer.from(prefix.subarray(0, end));
  bound[end - 1] = (bound[end - 1] as number) + 1;
  return bound;
}
