import type uPlot from 'uplot';
import styles from './charts.module.css';

/**
 * A tooltip that follows uPlot's cursor over the plot: `lines(index)` for the data point under it (null:
 * hidden). Written as text (textContent), never as HTML, and placed through the CSSOM (the page's CSP allows
 * no inline style attribute). Hidden from assistive technology: the same figures are in the page's tables.
 */
export function tooltipPlugin(lines: (index: number) => string[] | null): uPlot.Plugin {
  let tip: HTMLDivElement | null = null;
  return {
    hooks: {
      init: (u) => {
        tip = document.createElement('div');
        tip.className = styles.tooltip;
        tip.setAttribute('aria-hidden', 'true');
        tip.hidden = true;
        u.over.appendChild(tip);
      },
      setCursor: (u) => {
        if (!tip) return;
        const { idx, left, top } = u.cursor;
        const text = idx === null || idx === undefined || left === undefined || left < 0 ? null : lines(idx);
        if (!text) {
          tip.hidden = true;
          return;
        }
        tip.replaceChildren(
          ...text.map((line) => {
            const div = document.createElement('div');
            div.textContent = line;
            return div;
          }),
        );
        tip.hidden = false;
        const x = Math.max(0, Math.min(left! + 12, u.over.clientWidth - tip.offsetWidth - 4));
        const y = Math.max(0, (top ?? 0) - tip.offsetHeight - 10);
        tip.style.transform = `translate(${x}px, ${y}px)`;
      },
    },
  };
}
