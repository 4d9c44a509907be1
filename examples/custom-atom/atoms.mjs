// Custom atoms for the command line: `ajsc check|build|run --atoms examples/custom-atom/atoms.mjs`.
import { defineAtom, s } from 'ajs-lang'

export const weather = defineAtom(
  'weather',
  s.object({ city: s.string }),
  s.object({ city: s.string, sky: s.string }),
  async ({ city }) => ({ city, sky: city.length % 2 === 0 ? 'rain' : 'sun' }),
  { docs: 'Today\'s sky in a city (an offline stand-in for a weather service).' },
)
