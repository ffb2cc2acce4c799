import type { MediaProblem, MediaStore } from '../media/media-store.ts';
import type { MediaReference } from '../store/media-references.ts';

/** What `loupe media check` answers. */
export interface MediaAuditReport {
  ok: boolean;
  /** Files the database names, each looked at once. */
  checked: number;
  missing: number;
  empty: number;
  /** Not the image their name says, cut short, unreadable, or (with `decode`) not decoding whole. */
  damaged: number;
  /** Files in the media folder no row names: left by a process stopped between a delete's commit and its files' removal (the sweep takes them), or put there by hand. */
  unnamed_files: number;
  /** The first `listLimit` of them (h100: counted, not named, an operator could not remove them). */
  unnamed: string[];
  /**
   * Temporary parts of writes a stopped process cut short (`<file>.<pid>.tmp`), which the server's sweep removes within
   * an hour of the stop; no problem, but on the disk (h163: a check right after a crash said nothing of them).
   */
  unfinished_writes: number;
  unfinished: string[];
  /** The first `listLimit` problems, each with the row or request naming the file (send the image again to mend a session row). */
  problems: Array<MediaReference & { problem: MediaProblem }>;
  /** Problems found beyond the list. */
  problems_not_listed: number;
}

/**
 * Looks at every media file the database names (`loupe media check`): a file deleted, emptied or damaged behind the
 * server was served as 200 with whatever was left, and nothing told the operator (h96). Reads files one at a time.
 */
export async function auditMedia(
  references: AsyncIterable<MediaReference>,
  media: MediaStore,
  options: { decode?: boolean; listLimit?: number; pendingDeletion?: ReadonlySet<string>; stillNamed?: (ref: MediaReference) => Promise<boolean>; since?: number } = {},
): Promise<MediaAuditReport> {
  const listLimit = options.listLimit ?? 1000;
  const report: MediaAuditReport = { ok: true, checked: 0, missing: 0, empty: 0, damaged: 0, unnamed_files: 0, unnamed: [], unfinished_writes: 0, unfinished: [], problems: [], problems_not_listed: 0 };
  const named = new Set<string>();
  for await (const ref of references) {
    if (named.has(ref.key)) continue;
    named.add(ref.key);
    report.checked++;
    const problem = await media.inspect(ref.key, options.decode ?? false);
    if (!problem) continue;
    // a row deleted since the references were read (beside a running server) took its file with it: no problem
    if (options.stillNamed && !(await options.stillNamed(ref))) continue;
    if (problem === 'missing') report.missing++;
    else if (problem === 'empty') report.empty++;
    else report.damaged++;
    if (report.problems.length < listLimit) report.problems.push({ ...ref, problem });
    else report.problems_not_listed++;
  }
  for await (const key of media.keys()) {
    if (named.has(key) || options.pendingDeletion?.has(key)) continue;
    // written since the check began: its row may have come after the references were read
    if (options.since !== undefined) {
      const at = await media.modifiedAt(key);
      // gone since it was listed (a delete's sweep): no file, so none named by no row (h255)
      if (at === undefined || at >= options.since) continue;
    }
    report.unnamed_files++;
    if (report.unnamed.length < listLimit) report.unnamed.push(key);
  }
  for await (const rel of media.strayFiles()) {
    report.unnamed_files++;
    if (report.unnamed.length < listLimit) report.unnamed.push(rel);
  }
  for await (const rel of media.unfinishedWrites()) {
    report.unfinished_writes++;
    if (report.unfinished.length < listLimit) report.unfinished.push(rel);
  }
  report.ok = report.missing + report.empty + report.damaged === 0;
  return report;
}
