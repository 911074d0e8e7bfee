// How the runner loads a package it needs only sometimes (the module transformer, the input
// validator): `import()` from this folder. A process started from the startup snapshot has no
// loader for `import()` in the snapshot's code; snapshot-entry.cjs sets one that has.

let importer = (specifier) => import(specifier)

/** The namespace of package `specifier`, resolved from the runner's folder. */
export const importPackage = (specifier) => importer(specifier)

export const setImporter = (next) => {
  importer = next
}
