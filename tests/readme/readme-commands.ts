// The commands README.md tells a reader to type: every line of its ```bash blocks (continuation
// lines joined, the trailing comment dropped), and a command a comment offers in parentheses,
// `# ... (or curl -s http://...)`. The README is the source; tests/readme/readme-plan.ts says how
// each one is run.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/processes';

export interface ReadmeCommand {
  /** The command as written, on one line. */
  readonly text: string;
  /** The README line it starts on (1-based). */
  readonly line: number;
}

export const readReadme = (root = REPO_ROOT): string => readFileSync(join(root, 'README.md'), 'utf8');

/** Where an unquoted `#` starts a comment: the text before it, trimmed. */
export function withoutComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"') {
      quote = char;
    } else if (char === '#' && (i === 0 || /\s/.test(line[i - 1] ?? ''))) {
      return line.slice(0, i).trim();
    }
  }
  return line.trim();
}

const OFFERED_IN_COMMENT = /\(or ((?:curl|npm|npx|node) [^)]+)\)/g;

export function readmeCommands(markdown: string): ReadmeCommand[] {
  const commands: ReadmeCommand[] = [];
  let inBash = false;
  let pending: { text: string; line: number } | undefined;
  markdown.split('\n').forEach((raw, index) => {
    const line = index + 1;
    const fence = /^```(\S*)/.exec(raw);
    if (fence) {
      inBash = !inBash && fence[1] === 'bash';
      return;
    }
    if (!inBash) return;
    if (pending === undefined && raw.trim().startsWith('#')) {
      for (const [, offered] of raw.matchAll(OFFERED_IN_COMMENT)) commands.push({ text: offered!, line });
      return;
    }
    const code = withoutComment(raw);
    const continued = code.endsWith('\\');
    const part = continued ? code.slice(0, -1).trim() : code;
    pending = pending === undefined ? { text: part, line } : { ...pending, text: `${pending.text} ${part}` };
    if (continued) return;
    if (pending.text !== '') commands.push(pending);
    pending = undefined;
  });
  return commands;
}

/** Every `npm run <script>` the README names, in code blocks and in the prose (across a line break too). */
export function npmRunNames(markdown: string): { name: string; line: number }[] {
  return [...markdown.matchAll(/\bnpm\s+run\s+(?:--silent\s+)?([a-z][\w:-]*)/g)].map((match) => ({
    name: match[1]!,
    line: markdown.slice(0, match.index).split('\n').length,
  }));
}
