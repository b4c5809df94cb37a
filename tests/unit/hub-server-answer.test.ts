/** An unexpected server answer is one line: host, status, content type and a clean excerpt (never a token). */
import { describe, expect, it } from 'vitest';
import { answerExcerpt, jsonApiFetch, notJsonLine, unexpectedAnswerLine } from '../../src/lib/hub/server-answer.ts';

describe('server answers', () => {
  it('the excerpt is one short line with control characters gone and tokens hidden', () => {
    expect(answerExcerpt('<html>\n\t<body>\u001b[31mred\u202e</body>')).toBe('<html> <body> [31mred </body>');
    expect(answerExcerpt('echo: Bearer hf_abcDEF123456 end')).toBe('echo: Bearer hf_… end');
    expect(answerExcerpt('x'.repeat(500))).toHaveLength(60);
    expect(notJsonLine('hub.example', 200, null, '')).toBe('hub.example answered 200 with no content type, not JSON (an empty body)');
  });

  it('a 2xx API answer that is not JSON is refused before it is parsed; JSON, errors and downloads pass', async () => {
    const answer = (body: string, type: string, status = 200) => async () => new Response(body, { status, headers: { 'content-type': type } });
    const hub = 'https://hub.example';
    await expect(jsonApiFetch(answer('<p>portal</p>', 'text/html'), hub)(`${hub}/api/datasets/a/b/revision/main`))
      .rejects.toThrow("hub.example answered 200 with text/html, not JSON (first bytes: '<p>portal</p>')");
    expect((await jsonApiFetch(answer('{}', 'application/json'), hub)(`${hub}/api/x`)).status).toBe(200);
    expect((await jsonApiFetch(answer('<p>down</p>', 'text/html', 502), hub)(`${hub}/api/x`)).status).toBe(502);
    expect((await jsonApiFetch(answer('bytes', 'application/octet-stream'), hub)(`${hub}/datasets/a/b/resolve/main/f`)).status).toBe(200);
    let parseError: unknown;
    try { JSON.parse('{oops'); } catch (e) { parseError = e; }
    expect(unexpectedAnswerLine(parseError, hub)).toMatch(/^hub\.example answered with JSON that does not parse \(/);
    expect(unexpectedAnswerLine(new Error('other'), hub)).toBeNull();
  });
});
