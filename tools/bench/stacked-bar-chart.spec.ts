import { describe, expect, it } from 'vitest';
import { stackedBarChart, tickStep } from './stacked-bar-chart';

describe('the stacked bar chart', () => {
  it('steps its axis by 1, 2 or 5 × 10^n', () => {
    expect([7, 40, 224, 1800].map(tickStep)).toEqual([2, 10, 50, 500]);
  });

  it('draws a segment per part, bottom up, and the mark across the bar', () => {
    const svg = stackedBarChart({
      title: 'a <title>',
      yLabel: 'ms',
      parts: [
        { name: 'low', color: '#111' },
        { name: 'high', color: '#222' },
      ],
      bars: [{ label: '25/s', values: [30, 70], mark: 120 }],
      markName: 'e2e p50',
    });
    expect(svg).toContain('<title>a &#60;title&#62;</title>');
    // Axis to 150 (ticks of 50) over 224 px: 30 ms is 44.8 px above the base line at 256.
    expect(svg).toMatch(/data-part="low" x="[\d.]+" y="211.2" width="[\d.]+" height="44.8"/);
    expect(svg).toMatch(/data-part="high" x="[\d.]+" y="106.7" width="[\d.]+" height="104.5"/);
    expect(svg).toContain('y1="76.8" y2="76.8" stroke="#000" stroke-width="2"');
    expect(svg).toContain('>e2e p50</text>');
  });
});
