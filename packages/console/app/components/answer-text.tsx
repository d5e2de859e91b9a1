/**
 * An answer as the console shows it: text as written, GitHub pipe tables as tables, run-file
 * images (`![chart.png](/v1/files/…/content)`) as images and run-file links as downloads, both
 * through the signed-in key. The Markdown is read into plain data (`src/files/answer-markdown.ts`)
 * and rendered with text nodes only: no HTML in an answer is ever interpreted.
 */
import { useMemo } from 'preact/hooks';
import { parseAnswer, type Align, type Inline } from '../../src/files/answer-markdown';
import { FileDownload, FileImage } from './run-files';

function Inlines({ inlines, names }: { inlines: Inline[]; names: ReadonlyMap<string, string> }) {
  return (
    <>
      {inlines.map((inline, index) => {
        switch (inline.kind) {
          case 'text':
            return inline.text;
          case 'file-image':
            return (
              <FileImage
                key={index}
                fileId={inline.fileId}
                alt={inline.alt}
                name={names.get(inline.fileId)}
              />
            );
          case 'file-link':
            return (
              <FileDownload
                key={index}
                fileId={inline.fileId}
                name={names.get(inline.fileId)}
                label={inline.text}
              />
            );
          case 'link':
            return (
              <a key={index} href={inline.href} rel="noopener noreferrer" target="_blank">
                {inline.text}
              </a>
            );
        }
      })}
    </>
  );
}

/** A header cell's words, the label of its column's cells on a narrow screen. */
function plainText(inlines: Inline[]): string {
  return inlines
    .map((inline) => (inline.kind === 'file-image' ? inline.alt : inline.text))
    .join('');
}

function alignClass(align: Align): string | undefined {
  return align === undefined ? undefined : `align-${align}`;
}

/** The answer's Markdown, safely: `names` gives run files' names for their downloads. */
export function AnswerText({
  text,
  names = new Map(),
}: {
  text: string;
  names?: ReadonlyMap<string, string>;
}) {
  const blocks = useMemo(() => parseAnswer(text, window.location.origin), [text]);
  return (
    <>
      {blocks.map((block, index) => {
        if (block.kind === 'code') {
          return (
            <pre key={index} class="answer-code">
              <code>{block.text}</code>
            </pre>
          );
        }
        if (block.kind === 'text') {
          return (
            <div key={index} class="answer-text">
              <Inlines inlines={block.inlines} names={names} />
            </div>
          );
        }
        return (
          <div key={index} class="table-wrap">
            <table class="answer-table">
              <thead>
                <tr>
                  {block.header.map((cell, column) => (
                    <th key={column} scope="col" class={alignClass(block.align[column])}>
                      <Inlines inlines={cell} names={names} />
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {block.rows.map((row, rowIndex) => (
                  <tr key={rowIndex}>
                    {row.map((cell, column) => (
                      <td
                        key={column}
                        class={alignClass(block.align[column])}
                        data-label={plainText(block.header[column] ?? [])}
                      >
                        <Inlines inlines={cell} names={names} />
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
            {block.omittedRows === 0 ? null : (
              <p>
                <small>{block.omittedRows} more rows are not shown.</small>
              </p>
            )}
          </div>
        );
      })}
    </>
  );
}
