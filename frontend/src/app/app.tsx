import { RouterProvider } from "react-router";
import { queryClient } from "@/lib/query-client";
import { AppProvider } from "./provider";
import { createAppRouter } from "./router";

const router = createAppRouter();

export function App() {
  return (
    <AppProvider client={queryClient}>
      <RouterProvider router={router} />
    </AppProvider>
  );
}
