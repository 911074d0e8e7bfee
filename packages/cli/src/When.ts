/**
 * A timestamp as people read it: "just now", "5 min ago", "3 h ago" within the day, then
 * "yesterday 14:02", then the local date and time ("2026-11-20 14:02"). `--json` keeps the ISO
 * form; this is for the screen.
 */
export const when = (iso: string, now: Date = new Date()): string => {
  const at = new Date(iso)
  if (Number.isNaN(at.getTime())) return iso
  const seconds = Math.round((now.getTime() - at.getTime()) / 1000)
  const pad = (value: number) => String(value).padStart(2, "0")
  const time = `${pad(at.getHours())}:${pad(at.getMinutes())}`
  if (seconds >= -60 && seconds < 60) return "just now"
  if (seconds > 0 && seconds < 3600) return `${Math.floor(seconds / 60)} min ago`
  if (seconds > 0 && seconds < 6 * 3600) return `${Math.floor(seconds / 3600)} h ago`
  const day = (date: Date) => new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime()
  const days = Math.round((day(now) - day(at)) / 86_400_000)
  if (days === 0) return `today ${time}`
  if (days === 1) return `yesterday ${time}`
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${time}`
}
