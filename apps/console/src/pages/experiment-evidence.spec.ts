import { describe, expect, it } from 'vitest';
import { evidenceHtml, stepsHtml, verdictHtml } from './experiment-evidence';

describe('experiment evidence on the page', () => {
  it('renders a table with its caption, header and rows, escaping every cell', () => {
    const out = evidenceHtml({
      kind: 'table',
      caption: 'Assignment: 2/2',
      columns: ['Member', 'Partitions'],
      rows: [['<b>m1</b>', '0, 1']],
    }).value;
    expect(out).toContain('Assignment: 2/2');
    expect(out).toContain('<th scope="col">Member</th>');
    expect(out).toMatch(/<td>&lt;b&gt;m1&lt;\/b&gt;<\/td>\s*<td>0, 1<\/td>/);
  });

  it('renders log lines in a pre and values as name/value rows', () => {
    expect(evidenceHtml({ kind: 'log', caption: 'Error', lines: ['a', 'b'] }).value).toContain(
      '<pre>a\nb</pre>',
    );
    expect(evidenceHtml({ kind: 'values', caption: 'Counts', entries: [['missing', '0']] }).value).toMatch(
      /<tr>\s*<th scope="row">missing<\/th>\s*<td>0<\/td>\s*<\/tr>/,
    );
  });

  it('says PASS or FAIL with the summary and the duration; steps carry their time and folded evidence', () => {
    const pass = verdictHtml('x', { passed: true, summary: 'held', evidence: [] }, 2_340).value;
    expect(pass).toMatch(/id="verdict-x"[^>]*>\s*<strong>PASS<\/strong> held\s*<small>\(2\.3 s\)<\/small>/);
    expect(verdictHtml('x', { passed: false, summary: 'no', evidence: [] }, 0).value).toContain(
      '<strong>FAIL</strong>',
    );
    const steps = stepsHtml([
      { atMs: 1_500, text: 'one' },
      { atMs: 2_000, text: 'two', evidence: { kind: 'log', caption: 'Lines', lines: ['l'] } },
    ]).value;
    expect(steps).toContain('+1.5 s');
    expect(steps).toMatch(/<details>\s*<summary>Lines<\/summary>/);
  });
});
