import { Effect } from "effect"

/**
 * Sessions this process knows to be active, so most requests skip a database read. Every
 * revocation evicts at once, after the database has it; a session is remembered only when no
 * revocation ran in this process while it was being created or checked (else the answer may
 * predate that revocation and the session would outlive it here). See docs/auth.md.
 */
export const make = () => {
  const active = new Set<string>()
  // Bumped by every revocation: `remember` compares it before and after its database call.
  let revocations = 0

  return {
    has: (id: string) => active.has(id),
    /** Runs `check` (true: the session is active) and remembers `id` when it is still safe to. */
    remember: <E, R>(id: string, check: Effect.Effect<boolean, E, R>) =>
      Effect.suspend(() => {
        const seen = revocations
        return Effect.tap(check, (isActive) => {
          if (isActive && revocations === seen) active.add(id)
        })
      }),
    forget: (ids: Iterable<string>) => {
      revocations += 1
      for (const id of ids) active.delete(id)
    },
    forgetAll: () => {
      revocations += 1
      active.clear()
    },
  }
}
