// A module-resolution hook (`node --import`) under which the kernel's optional peers (the SQLite
// and PostgreSQL drivers, argon2) are not installed: resolving one fails as Node fails for a
// missing package, and the attempt is appended to the file AIDE_REFUSED_RECORD names.
import { appendFileSync } from "node:fs"
import { register } from "node:module"

const refused = ["better-sqlite3", "@effect/sql-sqlite-node", "pg", "@effect/sql-pg", "argon2"]

if (process.env.AIDE_WITHOUT_NATIVES === undefined) {
  process.env.AIDE_WITHOUT_NATIVES = "1"
  register(import.meta.url, { data: process.env.AIDE_REFUSED_RECORD })
}

let record
export const initialize = (file) => {
  record = file
}
export const resolve = async (specifier, context, next) => {
  if (refused.includes(specifier)) {
    if (record !== undefined) appendFileSync(record, `${specifier}\n`)
    throw Object.assign(new Error(`Cannot find package '${specifier}'`), { code: "ERR_MODULE_NOT_FOUND" })
  }
  return next(specifier, context)
}
