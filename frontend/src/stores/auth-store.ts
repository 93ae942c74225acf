import { create } from "zustand";
import { createJSONStorage, persist } from "zustand/middleware";
import { configureSession, setAccessToken, type AuthProvider } from "@/lib/session";

/** The user (docs/product.md#user), as plain data (protobuf-es names). */
export type AppUser = {
  idUser: string;
  id: string;
  name: string;
  username: string;
  email: string;
  pictureUrl: string;
  lineId1: string;
  twoStepVerification: string;
};

export type FilterParams = {
  keyword: string;
  keyWord_Incl_Or: string;
  keyWord_Incl_And: string;
  keyWord_Excl_Nor: string;
  page: number;
  per_page: number;
};

export const DEFAULT_FILTER_PARAMS: FilterParams = {
  keyword: "",
  keyWord_Incl_Or: "",
  keyWord_Incl_And: "",
  keyWord_Excl_Nor: "",
  page: 1,
  per_page: 10,
};

/** Registration codes live 300 s unless the server says otherwise (docs/product.md#business-constants-and-limits). */
export const DEFAULT_OTP_SECONDS = 300;

/** The auth state (docs/product.md#auth-state). */
export type AuthState = {
  user: AppUser | null;
  email: string;
  loading: boolean;
  error: string | null;
  otpRequired: boolean;
  resetPasswordSuccess: boolean;
  resetPasswordError: string | null;
  registrationVerified: boolean;
  registrationSuccess: boolean;
  verificationMessage: string;
  otpExpiresIn: number;
  filterParams: FilterParams;
  genInforData: unknown[];
  genInforPagination: unknown;
  /** How the session was started; LINE sessions refresh through the LINE path. */
  provider: AuthProvider;
};

type AuthActions = {
  set: (patch: Partial<AuthState>) => void;
  /** A sign-in answer: keep the token in memory, the user in the store. */
  signedIn: (user: AppUser | null, accessToken: string, provider?: AuthProvider) => void;
  /** Logout, failed refresh, user not found: user, e-mail and OTP flag cleared. */
  clearAuth: () => void;
};

export const initialAuthState: AuthState = {
  user: null,
  email: "",
  loading: false,
  error: null,
  otpRequired: false,
  resetPasswordSuccess: false,
  resetPasswordError: null,
  registrationVerified: false,
  registrationSuccess: false,
  verificationMessage: "",
  otpExpiresIn: DEFAULT_OTP_SECONDS,
  filterParams: DEFAULT_FILTER_PARAMS,
  genInforData: [],
  genInforPagination: null,
  provider: "password",
};

export const AUTH_STORAGE_KEY = "bidradar-auth";

export const useAuthStore = create<AuthState & AuthActions>()(
  persist(
    (set) => ({
      ...initialAuthState,
      set: (patch) => set(patch),
      signedIn: (user, accessToken, provider) => {
        setAccessToken(accessToken);
        set((s) => ({
          user: user ?? s.user,
          email: user?.email || s.email,
          otpRequired: false,
          error: null,
          loading: false,
          provider: provider ?? s.provider,
        }));
      },
      clearAuth: () => {
        setAccessToken(null);
        set({ user: null, email: "", otpRequired: false, loading: false, provider: "password" });
      },
    }),
    {
      name: AUTH_STORAGE_KEY,
      version: 1,
      storage: createJSONStorage(() => localStorage),
      // Server data (genInfor) and transient flags stay out of storage.
      partialize: (s) => ({
        user: s.user,
        email: s.email,
        otpRequired: s.otpRequired,
        otpExpiresIn: s.otpExpiresIn,
        filterParams: s.filterParams,
        provider: s.provider,
      }),
    },
  ),
);

export const selectUser = (s: AuthState) => s.user;
export const selectIsLoggedIn = (s: AuthState) => s.user !== null;

configureSession({
  getProvider: () => useAuthStore.getState().provider,
  onCredentialsCleared: () => useAuthStore.getState().clearAuth(),
});

/** Protobuf User (or anything shaped like it) to store data. */
export function toAppUser(u: Partial<AppUser> | undefined | null): AppUser | null {
  if (!u) return null;
  return {
    idUser: u.idUser ?? "",
    id: u.id ?? "",
    name: u.name ?? "",
    username: u.username ?? "",
    email: u.email ?? "",
    pictureUrl: u.pictureUrl ?? "",
    lineId1: u.lineId1 ?? "",
    twoStepVerification: u.twoStepVerification ?? "",
  };
}
