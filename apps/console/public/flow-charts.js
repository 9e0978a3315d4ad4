// The flow page's charts: uPlot (served from this origin) over the sampler's series
// (GET /flow/series), refreshed at the sampling interval. Without JavaScript the page shows the
// picture and the tables; the series stays readable as JSON.
'use strict';

const SERVICES = ['order', 'payment', 'inventory', 'email', 'analytics'];
const COLOURS = ['#2f6fd6', '#d6792f', '#2f9e5a', '#a23fb8', '#7a7f87'];

function perService(key, unit, label) {
  return {
    title: label,
    unit,
    series: SERVICES.map((name, i) => ({ label: name, stroke: COLOURS[i], pick: (d) => d[key][name] })),
  };
}

const CHARTS = [
  {
    title: 'Orders per second (the console’s consumer)',
    unit: '/s',
    series: [
      { label: 'placed/s', stroke: COLOURS[0], pick: (d) => d.placedPerSecond },
      { label: 'terminal/s', stroke: COLOURS[2], pick: (d) => d.terminalPerSecond },
    ],
  },
  {
    title: 'End to end, order.placed → confirmed/cancelled (event times)',
    unit: 'ms',
    series: [
      { label: 'p50 ms', stroke: COLOURS[0], pick: (d) => d.e2eP50Ms },
      { label: 'p99 ms', stroke: COLOURS[1], pick: (d) => d.e2eP99Ms },
    ],
  },
  perService('lag', 'records', 'Total lag per consumer group'),
  perService('eventsPerTransaction', 'events', 'Events per consumer transaction'),
  perService('cpuPercent', '%', 'CPU % per service'),
  perService('rssMiB', 'MiB', 'Resident memory (RSS) per service'),
];

function chartData(spec, data) {
  return [data.t, ...spec.series.map((s) => s.pick(data))];
}

function makeChart(container, spec, data) {
  const figure = document.createElement('figure');
  figure.className = 'flow-chart';
  const caption = document.createElement('figcaption');
  caption.textContent = spec.title;
  figure.append(caption);
  container.append(figure);
  const width = Math.max(320, Math.min(620, container.clientWidth / 2 - 24));
  const options = {
    width,
    height: 200,
    series: [
      {},
      ...spec.series.map((s) => ({ label: s.label, stroke: s.stroke, width: 1.5, spanGaps: false })),
    ],
    axes: [{}, { label: spec.unit, size: 56 }],
    scales: { x: { time: true } },
  };
  // uPlot is the global of uPlot.iife.min.js.
  return new uPlot(options, chartData(spec, data), figure);
}

function flowCharts(container) {
  const url = container.dataset.seriesUrl;
  const every = Number(container.dataset.refreshMs || 5000);
  let charts;
  const tick = async () => {
    try {
      const response = await fetch(url, { headers: { accept: 'application/json' } });
      if (response.ok) {
        const data = await response.json();
        if (charts === undefined) {
          container.replaceChildren();
          charts = CHARTS.map((spec) => ({ spec, chart: makeChart(container, spec, data) }));
        } else {
          for (const { spec, chart } of charts) chart.setData(chartData(spec, data));
        }
        container.dataset.points = String(data.points);
      }
    } catch {
      // The console restarting: try again at the next tick.
    }
    setTimeout(tick, every);
  };
  void tick();
}

document.querySelectorAll('#flow-charts[data-series-url]').forEach(flowCharts);
