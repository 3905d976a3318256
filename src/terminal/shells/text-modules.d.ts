/** Shell scripts imported as text (`with { type: "text" }`): Bun hands over the file's contents. */
declare module "*.bash" {
  const text: string;
  export default text;
}
declare module "*.zsh" {
  const text: string;
  export default text;
}
declare module "*.fish" {
  const text: string;
  export default text;
}
declare module "*.sh" {
  const text: string;
  export default text;
}
