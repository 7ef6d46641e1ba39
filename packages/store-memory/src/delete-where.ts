/** Deletes the entries whose value matches; returns how many. */
export function deleteWhere<K, V>(map: Map<K, V>, predicate: (value: V) => boolean): number {
  let deleted = 0;
  for (const [key, value] of map) {
    if (predicate(value)) {
      map.delete(key);
      deleted++;
    }
  }
  return deleted;
}
