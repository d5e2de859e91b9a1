import { useState } from 'preact/hooks';
import { useAction } from '../hooks';
import { ErrorNote } from './error-note';

/**
 * A button for something that cannot be undone (cancel a run, delete a document, erase memory):
 * the first press asks, in the page, the second does it. Keyboard and screen readers get the
 * question as a labelled group.
 */
export function ConfirmButton({
  label,
  ariaLabel,
  question,
  confirmLabel,
  keepLabel,
  disabled = false,
  onConfirm,
}: {
  /** The first button, e.g. "Cancel…". */
  label: string;
  /** The first button's accessible name, when `label` alone is ambiguous in a list. */
  ariaLabel?: string;
  question: string;
  confirmLabel: string;
  keepLabel: string;
  disabled?: boolean;
  onConfirm: () => Promise<void>;
}) {
  const [confirming, setConfirming] = useState(false);
  const action = useAction();
  const confirm = async (): Promise<void> => {
    if (await action.run(onConfirm)) setConfirming(false);
  };
  return (
    <div class="confirm">
      {confirming ? (
        <div role="group" aria-label={question}>
          <p>{question}</p>
          <button
            type="button"
            class="contrast"
            aria-busy={action.busy}
            disabled={action.busy}
            onClick={() => void confirm()}
          >
            {confirmLabel}
          </button>{' '}
          <button type="button" class="secondary outline" onClick={() => setConfirming(false)}>
            {keepLabel}
          </button>
        </div>
      ) : (
        <button
          type="button"
          class="secondary outline"
          aria-label={ariaLabel}
          disabled={disabled}
          onClick={() => setConfirming(true)}
        >
          {label}
        </button>
      )}
      <ErrorNote message={action.error} />
    </div>
  );
}
