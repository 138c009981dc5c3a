/**
 * `make()` run when the function it returns is first called, and that same value returned after (undefined and false
 * included): for what a command may never need (a group of endpoint rows, whether a stream is a terminal).
 */
export function once<T>(make: () => T): () => T {
  let made = false;
  let value: T;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value;
  };
}
