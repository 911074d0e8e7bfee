/**
 * The console's icons: inline SVG, drawn with the text colour, so they render the same on every
 * system (an emoji such as 🗑 is an empty box where no emoji font is installed). Decorative:
 * the button or link around one carries the label.
 */
const paths = {
  menu: "M4 6h16M4 12h16M4 18h16",
  sun: "M12 4V2m0 20v-2m8-8h2M2 12h2m13.66-5.66 1.41-1.41M4.93 19.07l1.41-1.41m0-11.32L4.93 4.93m14.14 14.14-1.41-1.41M16 12a4 4 0 1 1-8 0 4 4 0 0 1 8 0Z",
  moon: "M20 14.5A8 8 0 0 1 9.5 4a8 8 0 1 0 10.5 10.5Z",
  pencil: "M4 20h4L19 9l-4-4L4 16v4Zm9-13 4 4",
  trash: "M4 7h16M10 11v6m4-6v6M6 7l1 13h10l1-13M9 7V4h6v3",
  paperclip: "M20 11.5 12 19.5a5 5 0 0 1-7-7l8.5-8.5a3.5 3.5 0 0 1 5 5L10 17.5a2 2 0 0 1-3-3l7.5-7.5",
  close: "M6 6l12 12M18 6 6 18",
  plus: "M12 5v14M5 12h14",
  check: "M5 12.5 10 17l9-10",
  cross: "M6 6l12 12M18 6 6 18",
  search: "M11 18a7 7 0 1 1 0-14 7 7 0 0 1 0 14Zm9 2-4-4",
  chevron: "M7 10l5 5 5-5",
  copy: "M9 9h10v11H9zM5 15V4h10",
  refresh: "M20 11a8 8 0 1 0-2.3 5.7M20 4v7h-7",
  left: "M15 6l-6 6 6 6",
  right: "M9 6l6 6-6 6",
} as const

export type IconName = keyof typeof paths

export function Icon({ name, size = 18 }: { readonly name: IconName; readonly size?: number }) {
  return (
    <svg
      className="svg-icon"
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      <path d={paths[name]} />
    </svg>
  )
}
