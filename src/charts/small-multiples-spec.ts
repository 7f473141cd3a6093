import type { MemberChart } from './chart-data.js';
import { chartSubtitle, chartTitle } from './chart-words.js';
import { memberColors } from './member-colors.js';
import { memberChartLayers, type PanelSize, type VegaLiteJson } from './member-chart-spec.js';

/** Two panels per row: a Slack message is about 600 px wide on a laptop. */
const COLUMNS = 2;

/**
 * One panel per chart, each with its own scales and legend: clusters have their own members and
 * their own ranges, and a panel that shares another's scale would flatten a quiet cluster.
 * `colors` is keyed `<cluster>/<member>`.
 */
export function smallMultiplesSpec(
  title: string,
  panels: readonly MemberChart[],
  size: PanelSize,
): { spec: VegaLiteJson; colors: Record<string, string> } {
  const colors: Record<string, string> = Object.create(null);
  const concat = panels.map((panel) => {
    const panelColors = memberColors(
      panel.series.map((s) => s.name),
      panel.highlight,
    );
    for (const [member, color] of Object.entries(panelColors)) colors[`${panel.cluster}/${member}`] = color;
    const title = {
      text: chartTitle(panel),
      subtitle: chartSubtitle(panel),
      fontSize: 12,
      subtitleFontSize: 11,
    };
    return { ...memberChartLayers(panel, panelColors, size), title };
  });
  return {
    spec: {
      title: { text: title },
      columns: COLUMNS,
      concat,
      resolve: {
        scale: { color: 'independent', y: 'independent', x: 'independent' },
        legend: { color: 'independent' },
      },
    },
    colors,
  };
}
