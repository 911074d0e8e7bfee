// How the runner loads a package it needs only sometimes (the module transformer, the input
// validator): `import()` from this folder. Code evaluated from a V8 code cache has no loader for
// `import()` on Node 20; start.cjs sets one that has (bundle-entry.cjs).

let importer = (specifier) => import(specifier)

/** The namespace of package `specifier`, resolved from the runner's folder. */
export const importPackage = (specifier) => importer(specifier)

export const setImporter = (next) => {
  importer = next
}
