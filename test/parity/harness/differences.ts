import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The page on which every kept difference from Kafka Streams is written up. */
export const DIFFERENCES_PAGE = "docs/differences.md";

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of the page's headings. */
export function anchorsOf(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/^#{1,6} +(.+)$/gm)].map((m) => anchorOf(m[1]!)));
}

/** Null when `page` names a section of docs/differences.md, else why not. */
export function missingSection(page: string, repoRoot: string): string | null {
  const [file, anchor] = page.split("#");
  if (file !== DIFFERENCES_PAGE || !anchor) return `a documented difference must name "${DIFFERENCES_PAGE}#<anchor>", not "${page}"`;
  const anchors = anchorsOf(readFileSync(join(repoRoot, DIFFERENCES_PAGE), "utf8"));
  if (!anchors.has(anchor)) return `${DIFFERENCES_PAGE} has no section "#${anchor}" (its anchors: ${[...anchors].join(", ")}); write the difference up there first`;
  return null;
}
