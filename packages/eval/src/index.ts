export { runPlannerEval } from './planner';
export { runAnswersEval } from './answers';
