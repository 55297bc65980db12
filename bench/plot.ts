// A small line chart as SVG, written by hand so the report needs no plotting
// dependency: x on a log scale (node counts), y linear from zero.

export interface Series {
  readonly name: string;
  readonly values: readonly number[];
  readonly color: string;
  readonly dashed?: boolean;
}

export interface Chart {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly xs: readonly number[];
  readonly series: readonly Series[];
}

const WIDTH = 760;
const HEIGHT = 420;
const MARGIN = { left: 70, right: 220, top: 40, bottom: 55 };

function escape(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** A round step for about five ticks up to `max`. */
function tickStep(max: number): number {
  const rough = max / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  return [1, 2, 2.5, 5, 10].map((m) => m * power).find((step) => step >= rough) ?? rough;
}

export function lineChart(chart: Chart): string {
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const finite = chart.series.flatMap((s) => s.values).filter(Number.isFinite);
  const step = tickStep(Math.max(...finite, 1e-9));
  const yMax = Math.ceil(Math.max(...finite, 1e-9) / step) * step;
  const logs = chart.xs.map(Math.log10);
  const [lo, hi] = [Math.min(...logs), Math.max(...logs)];
  const x = (value: number) =>
    MARGIN.left + (hi === lo ? plotWidth / 2 : ((Math.log10(value) - lo) / (hi - lo)) * plotWidth);
  const y = (value: number) => MARGIN.top + plotHeight - (value / yMax) * plotHeight;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${MARGIN.left}" y="22" font-size="15" font-weight="bold">${escape(chart.title)}</text>`,
  ];
  for (let tick = 0; tick <= yMax + step / 2; tick += step) {
    const at = y(tick).toFixed(1);
    parts.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${at}" y2="${at}" stroke="#ddd"/>`);
    parts.push(
      `<text x="${MARGIN.left - 8}" y="${at}" text-anchor="end" dominant-baseline="middle">${Number(tick.toPrecision(6))}</text>`,
    );
  }
  for (const value of chart.xs) {
    const at = x(value).toFixed(1);
    parts.push(`<line x1="${at}" x2="${at}" y1="${MARGIN.top}" y2="${MARGIN.top + plotHeight}" stroke="#eee"/>`);
    parts.push(
      `<text x="${at}" y="${MARGIN.top + plotHeight + 18}" text-anchor="middle">${value.toLocaleString('en-US')}</text>`,
    );
  }
  parts.push(
    `<text x="${MARGIN.left + plotWidth / 2}" y="${HEIGHT - 12}" text-anchor="middle">${escape(chart.xLabel)}</text>`,
  );
  parts.push(
    `<text transform="translate(18 ${MARGIN.top + plotHeight / 2}) rotate(-90)" text-anchor="middle">${escape(chart.yLabel)}</text>`,
  );
  parts.push(
    `<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotWidth}" height="${plotHeight}" fill="none" stroke="#888"/>`,
  );
  chart.series.forEach((series, index) => {
    const points = series.values
      .map((value, i) => (Number.isFinite(value) ? `${x(chart.xs[i]!).toFixed(1)},${y(value).toFixed(1)}` : undefined))
      .filter((p) => p !== undefined);
    const dash = series.dashed ? ' stroke-dasharray="6 4"' : '';
    parts.push(`<polyline points="${points.join(' ')}" fill="none" stroke="${series.color}" stroke-width="2"${dash}/>`);
    for (const point of points) {
      const [px, py] = point.split(',');
      parts.push(`<circle cx="${px}" cy="${py}" r="3" fill="${series.color}"/>`);
    }
    const legendY = MARGIN.top + 10 + index * 20;
    const legendX = MARGIN.left + plotWidth + 15;
    parts.push(
      `<line x1="${legendX}" x2="${legendX + 28}" y1="${legendY}" y2="${legendY}" stroke="${series.color}" stroke-width="2"${dash}/>`,
    );
    parts.push(`<text x="${legendX + 36}" y="${legendY}" dominant-baseline="middle">${escape(series.name)}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

/** Charts one above the other in one SVG file. */
export function stacked(charts: readonly Chart[]): string {
  const inner = charts.map((chart, index) => lineChart(chart).replace('<svg ', `<svg y="${index * HEIGHT}" `));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT * charts.length}" viewBox="0 0 ${WIDTH} ${HEIGHT * charts.length}">\n${inner.join('')}</svg>\n`;
}
