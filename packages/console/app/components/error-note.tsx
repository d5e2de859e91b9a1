/** A failure, announced to screen readers as it appears. */
export function ErrorNote({ message }: { message: string | undefined }) {
  if (message === undefined) return null;
  return (
    <p class="error-note" role="alert">
      {message}
    </p>
  );
}
