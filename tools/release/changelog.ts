/**
 * CHANGELOG.md (Keep a Changelog): the versions it lists, and the release of its Unreleased
 * section under a new heading `## [<version>] - <date>`, leaving an empty Unreleased above it.
 */
const UNRELEASED = /^## \[Unreleased\][^\n]*\n/m;
const RELEASE_HEADING = /^## \[(\d[^\]]*)\]/gm;

/** Every version with a heading of its own, newest first as the file lists them. */
export function changelogVersions(text: string): string[] {
  return [...text.matchAll(RELEASE_HEADING)].map((m) => m[1]);
}

/** The changelog with Unreleased's entries moved under the new version's heading. */
export function releaseChangelog(text: string, version: string, date: string): string {
  const unreleased = UNRELEASED.exec(text);
  if (!unreleased) throw new Error('CHANGELOG.md has no "## [Unreleased]" section');
  const start = unreleased.index + unreleased[0].length;
  const next = text.slice(start).search(/^## \[/m);
  const end = next === -1 ? text.length : start + next;
  const entries = text.slice(start, end).trim();
  if (!/^- /m.test(entries)) throw new Error('CHANGELOG.md: the Unreleased section lists no change: write what this release changes first');
  if (changelogVersions(text).includes(version)) throw new Error(`CHANGELOG.md already has a ${version} section`);
  return `${text.slice(0, unreleased.index)}## [Unreleased]\n\n## [${version}] - ${date}\n\n${entries}\n\n${text.slice(end)}`;
}
