/** Deletes the entries whose value matches; returns how many. */
export function deleteWhere<K, V>(map: Map<K, V>, predicate: (value: V, key: K) => boolean): number {
  let deleted = 0;
  for (const [key, value] of map) {
    if (predicate(value, key)) {
      map.delete(key);
      deleted++;
    }
  }
  return deleted;
}
