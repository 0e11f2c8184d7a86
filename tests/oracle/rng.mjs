// Deterministic random numbers for the vector generators (splitmix64), so a
// generator run twice writes identical files.
const MASK = (1n << 64n) - 1n;

export function splitmix64(seed) {
  let state = BigInt(seed) & MASK;
  return function rand64() {
    state = (state + 0x9e3779b97f4a7c15n) & MASK;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
    return z ^ (z >> 31n);
  };
}
