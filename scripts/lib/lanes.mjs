// Work on a list, a few items at a time: `lanes` workers each take the next item until none is left.

/**
 * `work` for each of `items`, `lanes` at a time (at least one), started in the items' order; the results in that
 * order.
 * @template T, R
 * @param {readonly T[]} items
 * @param {number} lanes
 * @param {(item: T) => Promise<R>} work
 * @returns {Promise<R[]>}
 */
export async function inLanes(items, lanes, work) {
  const results = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, lanes) }, lane));
  return results;
}
