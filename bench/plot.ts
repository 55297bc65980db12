// Small charts as SVG, written by hand so the report needs no plotting
// dependency: lines over a log x (node counts), and grouped bars; y linear from zero.

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

/** The opening of a chart: background, title and the y axis's grid and labels from 0 to yMax. */
function frame(title: string, yMax: number, step: number, y: (value: number) => number): string[] {
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${MARGIN.left}" y="22" font-size="15" font-weight="bold">${escape(title)}</text>`,
  ];
  for (let tick = 0; tick <= yMax + step / 2; tick += step) {
    const at = y(tick).toFixed(1);
    parts.push(`<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${at}" y2="${at}" stroke="#ddd"/>`);
    parts.push(
      `<text x="${MARGIN.left - 8}" y="${at}" text-anchor="end" dominant-baseline="middle">${Number(tick.toPrecision(6))}</text>`,
    );
  }
  return parts;
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
  const parts = frame(chart.title, yMax, step, y);
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

/** Bars side by side per group (one per series), each with a whisker from `low` to `high`. */
export interface BarChart {
  readonly title: string;
  readonly yLabel: string;
  readonly groups: readonly string[];
  readonly series: readonly {
    readonly name: string;
    readonly color: string;
    /** One per group: the bar's height and its whisker. */
    readonly values: readonly { readonly value: number; readonly low: number; readonly high: number }[];
  }[];
}

export function barChart(chart: BarChart): string {
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const highest = Math.max(...chart.series.flatMap((s) => s.values.map((v) => v.high)), 1e-9);
  const step = tickStep(highest);
  const yMax = Math.ceil(highest / step) * step;
  const y = (value: number) => MARGIN.top + plotHeight - (value / yMax) * plotHeight;
  const groupWidth = plotWidth / chart.groups.length;
  const barWidth = (groupWidth * 0.7) / chart.series.length;
  const parts = frame(chart.title, yMax, step, y);
  parts.push(
    `<text transform="translate(18 ${MARGIN.top + plotHeight / 2}) rotate(-90)" text-anchor="middle">${escape(chart.yLabel)}</text>`,
  );
  chart.groups.forEach((group, g) => {
    const left = MARGIN.left + g * groupWidth + groupWidth * 0.15;
    parts.push(
      `<text x="${(MARGIN.left + (g + 0.5) * groupWidth).toFixed(1)}" y="${MARGIN.top + plotHeight + 18}" text-anchor="middle">${escape(group)}</text>`,
    );
    chart.series.forEach((series, s) => {
      const bar = series.values[g];
      if (!bar) return;
      const x = left + s * barWidth;
      const middle = (x + barWidth / 2).toFixed(1);
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${y(bar.value).toFixed(1)}" width="${(barWidth - 2).toFixed(1)}" height="${(y(0) - y(bar.value)).toFixed(1)}" fill="${series.color}"/>`,
      );
      parts.push(
        `<line x1="${middle}" x2="${middle}" y1="${y(bar.low).toFixed(1)}" y2="${y(bar.high).toFixed(1)}" stroke="#222"/>`,
      );
    });
  });
  parts.push(
    `<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotWidth}" height="${plotHeight}" fill="none" stroke="#888"/>`,
  );
  chart.series.forEach((series, index) => {
    const legendY = MARGIN.top + 10 + index * 20;
    const legendX = MARGIN.left + plotWidth + 15;
    parts.push(`<rect x="${legendX}" y="${legendY - 6}" width="28" height="12" fill="${series.color}"/>`);
    parts.push(`<text x="${legendX + 36}" y="${legendY}" dominant-baseline="middle">${escape(series.name)}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

/** Charts one above the other in one SVG file. */
export function stacked(charts: readonly Chart[]): string {
  return stackedSvg(charts.map(lineChart));
}

/** Rendered charts (of this file's size) one above the other in one SVG file. */
export function stackedSvg(svgs: readonly string[]): string {
  const inner = svgs.map((svg, index) => svg.replace('<svg ', `<svg y="${index * HEIGHT}" `));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT * svgs.length}" viewBox="0 0 ${WIDTH} ${HEIGHT * svgs.length}">\n${inner.join('')}</svg>\n`;
}
