export function NotFoundPage() {
  return (
    <section>
      <h1>Not found</h1>
      <p>
        There is no such page. Go to the <a href="/console/sessions">sessions</a>.
      </p>
    </section>
  );
}
