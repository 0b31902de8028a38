// Rendering a check run: a plain table for the terminal, and a shareable Markdown or HTML report.
import type { WalletCheckReport } from './index.ts';

/**
 * Control characters shown as escapes: a detail quotes the wallet's answers, and an escape sequence
 * in one would otherwise drive the terminal (rewrite lines, change colours) or break a row.
 */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (ch) => (ch === '\n' ? '\\n' : `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`));
}

export function table(report: WalletCheckReport): string {
  const width = Math.max(...report.checks.map((c) => c.name.length));
  const lines = report.checks.map((c) =>
    `${c.ok ? 'PASS' : 'FAIL'}  ${c.name.padEnd(width)}  ${String(c.ms).padStart(6)} ms  ${printable(c.detail)}`);
  const head = `wallet-check ${printable(report.url)} (user ${report.userId}, amounts in ${report.amountUnit}, effects judged by ${report.effects})`;
  return [head, ...lines, `${report.passed} passed, ${report.failed} failed`].join('\n');
}

function intro(report: WalletCheckReport): string[] {
  return [
    `Wallet: ${report.url}`,
    `Run at: ${report.startedAt}`,
    `Test user: ${report.userId}; amounts sent in ${report.amountUnit}`,
    report.effects === 'balances'
      ? 'Effects verified through GET /balances/{userId}.'
      : 'GET /balances/{userId} gave no balances at the start (no such endpoint, no cash and bonus in whole cents, or no answer in time): effects (a replay moving money twice) were judged from the answers only; check your ledger for the transactions of this user.',
    `Result: ${report.passed} passed, ${report.failed} failed.`,
  ];
}

export function markdown(report: WalletCheckReport): string {
  const cell = (text: string) => printable(text.replace(/\n/g, ' ')).replace(/\|/g, '\\|');
  return [
    '# Wallet conformance report',
    '',
    ...intro(report).map((line) => `- ${line}`),
    '',
    '| Result | Check | Time (ms) | Detail |',
    '|---|---|---:|---|',
    ...report.checks.map((c) => `| ${c.ok ? 'PASS' : '**FAIL**'} | ${cell(c.name)} | ${c.ms} | ${cell(c.detail)} |`),
    '',
  ].join('\n');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
}

export function html(report: WalletCheckReport): string {
  const rows = report.checks.map((c) =>
    `<tr class="${c.ok ? 'pass' : 'fail'}"><td>${c.ok ? 'PASS' : 'FAIL'}</td><td>${escapeHtml(c.name)}</td><td class="ms">${c.ms}</td><td>${escapeHtml(c.detail)}</td></tr>`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Wallet conformance report</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2rem; }
table { border-collapse: collapse; width: 100%; }
td, th { border: 1px solid #ccc; padding: .35rem .6rem; text-align: left; vertical-align: top; }
tr.pass td:first-child { color: #1a7f37; font-weight: bold; }
tr.fail td:first-child { color: #cf222e; font-weight: bold; }
td.ms { text-align: right; }
</style></head><body>
<h1>Wallet conformance report</h1>
<ul>${intro(report).map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>
<table><thead><tr><th>Result</th><th>Check</th><th>Time (ms)</th><th>Detail</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table>
</body></html>
`;
}
