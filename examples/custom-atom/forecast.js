// An AJS program calling the `weather` atom of atoms.mjs (see the README's CLI quick start).
function forecast({ city }) {
  const today = weather({ city })
  return { summary: `${today.city}: ${today.sky}` }
}
