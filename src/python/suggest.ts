/** "Did you mean" for Python names (shares the VM's edit-distance helper). */
export { closest as closestName } from '../vm/suggest.ts'
