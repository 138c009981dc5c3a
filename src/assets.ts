/**
 * Files the single-file executable carries (docs/install.md): `node:sea` assets, named as scripts/build-exe.mjs
 * names them. Outside the executable there are none, and callers read the file from the package instead.
 */
type Sea = { isSea(): boolean; getAsset(key: string): ArrayBuffer };

/** The asset's bytes inside the executable; undefined when not running as one (or it has no such asset). */
export function embeddedAsset(name: string): Buffer | undefined {
  let sea: Sea | undefined;
  try {
    sea = process.getBuiltinModule('node:sea') as Sea | undefined;
  } catch {
    return undefined;
  }
  if (!sea?.isSea()) return undefined;
  try {
    return Buffer.from(sea.getAsset(name));
  } catch {
    return undefined;
  }
}
