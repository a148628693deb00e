/**
 * Model-written text (the language-model editor's titles, descriptions, summary and chapter titles)
 * is untrusted: it reaches the show notes' Markdown, chapters.json, the .otio timeline, the API and
 * the share page, and any of those may be rendered as HTML by whatever opens it. Markup is removed,
 * not escaped, because none of those formats should carry it: HTML tags and comments, character
 * references, script and style blocks with their content, Markdown links and images (their text is kept), code spans, and line breaks that
 * would start a new Markdown block.
 */
export function plainText(text: string): string {
  return text
    .replace(/<!--[\s\S]*?(?:-->|$)/g, " ")
    .replace(/<(script|style|iframe|object|template)\b[\s\S]*?(?:<\/\1\s*>|$)/gi, " ")
    .replace(/<\/?[A-Za-z!?/][^>]*(?:>|$)/g, " ")
    .replace(/&(?:#\d+|#x[0-9a-f]+|[a-z][a-z0-9]*);/gi, " ")
    .replace(/!?\[([^\]]*)\]\((?:[^()]|\([^()]*\))*\)/g, "$1")
    .replace(/[<>`]/g, "")
    .replace(/\s+/g, " ")
    .trim();
}
