/** A guide's code blocks that carry a `title=<file>` (```ts title=index.ts), by file name: tests build from them. */
export function titledSnippets(markdown: string): Map<string, string> {
  const snippets = new Map<string, string>();
  for (const match of markdown.matchAll(/^ *```\w+ title=(\S+)\n([\s\S]*?)^ *```$/gm)) snippets.set(match[1]!, dedent(match[2]!));
  return snippets;
}

/** A block indented under a list item loses that indentation. */
function dedent(text: string): string {
  const lines = text.split('\n');
  const indents = lines.filter((line) => line.trim() !== '').map((line) => line.length - line.trimStart().length);
  const cut = indents.length > 0 ? Math.min(...indents) : 0;
  return cut === 0 ? text : lines.map((line) => line.slice(cut)).join('\n');
}
