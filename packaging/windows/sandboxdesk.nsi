; The Windows installer: a per-user install that needs no administrator,
; into %LOCALAPPDATA%\Programs\sandboxdesk, with a Start menu entry, an
; uninstaller in Settings > Apps, and "Open at login" if chosen.
; package.sh builds it (make package-windows), passing:
;   VERSION      the version as git describe prints it
;   VERSION_WIN  the same as Windows' four numbers (bundle winversion)
;   SRC          the folder holding sandboxdesk-app.exe, sandboxdesk.exe
;                and sandboxdesk-serve.exe
;   ICON         the .ico
;   OUTFILE      the installer to write
; Silent: setup.exe /S installs; /S /AUTOSTART=1 also opens the app at
; login, /AUTOSTART=0 stops it; uninstall.exe /S removes everything it
; installed, and the app's preferences. The sandboxes (the root folder,
; %LOCALAPPDATA%\sandboxdesk unless moved) are the user's work: they stay.

; 64-bit, as the programs it carries are: Wine without its 32-bit half runs it too
Target amd64-unicode
!include MUI2.nsh
!include FileFunc.nsh
!include LogicLib.nsh
!include Sections.nsh

!macro Need NAME
  !ifndef ${NAME}
    !error "${NAME} is not defined: packaging/windows/package.sh (make package-windows) builds this"
  !endif
!macroend
!insertmacro Need VERSION
!insertmacro Need VERSION_WIN
!insertmacro Need SRC
!insertmacro Need ICON
!insertmacro Need OUTFILE

!define APP_EXE "sandboxdesk-app.exe"
!define CLI_EXE "sandboxdesk.exe"
; the controller without a window, which `sandboxdesk serve` runs
!define SERVE_EXE "sandboxdesk-serve.exe"
!define UNINST_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\sandboxdesk"
; the value the app's Settings switch writes too (package autostart:
; Login.Name "sandboxdesk", the program quoted), so the two agree on
; whether the app opens at login
!define RUN_KEY "Software\Microsoft\Windows\CurrentVersion\Run"
!define RUN_VALUE "sandboxdesk"

Name "sandboxdesk"
OutFile "${OUTFILE}"
; per user: no UAC prompt, and Windows' guess that a "setup" needs an
; administrator is off once the manifest says so
RequestExecutionLevel user
InstallDir "$LOCALAPPDATA\Programs\sandboxdesk"
InstallDirRegKey HKCU "${UNINST_KEY}" "InstallLocation"
SetCompressor /SOLID lzma
BrandingText "sandboxdesk ${VERSION}"

VIProductVersion "${VERSION_WIN}"
VIFileVersion "${VERSION_WIN}"
VIAddVersionKey /LANG=1033 "ProductName" "sandboxdesk"
VIAddVersionKey /LANG=1033 "CompanyName" "sandboxdesk"
VIAddVersionKey /LANG=1033 "FileDescription" "sandboxdesk installer"
VIAddVersionKey /LANG=1033 "FileVersion" "${VERSION}"
VIAddVersionKey /LANG=1033 "ProductVersion" "${VERSION}"
VIAddVersionKey /LANG=1033 "LegalCopyright" "the sandboxdesk authors"

!define MUI_ICON "${ICON}"
!define MUI_UNICON "${ICON}"
!define MUI_COMPONENTSPAGE_NODESC
!define MUI_FINISHPAGE_RUN "$INSTDIR\${APP_EXE}"
!define MUI_FINISHPAGE_RUN_TEXT "Open sandboxdesk"
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_COMPONENTS
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

; NotRunning aborts when the app, the command line or the controller
; program is running from the install folder: Windows keeps a running program's file, and an install
; or uninstall that skipped it would leave a mix of versions behind.
!macro NotRunning FILE
  ${If} ${FileExists} "$INSTDIR\${FILE}"
    ClearErrors
    FileOpen $R2 "$INSTDIR\${FILE}" a
    ${If} ${Errors}
      MessageBox MB_OK|MB_ICONSTOP "sandboxdesk is running. Quit it (its tray menu or window), then try again." /SD IDOK
      SetErrorLevel 2
      Quit
    ${EndIf}
    FileClose $R2
  ${EndIf}
!macroend

Section "sandboxdesk" SecApp
  SectionIn RO
  SetShellVarContext current
  SetOutPath "$INSTDIR"
  !insertmacro NotRunning "${APP_EXE}"
  !insertmacro NotRunning "${CLI_EXE}"
  !insertmacro NotRunning "${SERVE_EXE}"
  File "${SRC}\${APP_EXE}"
  File "${SRC}\${CLI_EXE}"
  File "${SRC}\${SERVE_EXE}"
  WriteUninstaller "$INSTDIR\uninstall.exe"
  CreateShortcut "$SMPROGRAMS\sandboxdesk.lnk" "$INSTDIR\${APP_EXE}" "" "$INSTDIR\${APP_EXE}" 0 SW_SHOWNORMAL "" "Run sandboxes for coding agents"

  WriteRegStr HKCU "${UNINST_KEY}" "DisplayName" "sandboxdesk"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINST_KEY}" "Publisher" "sandboxdesk"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayIcon" "$INSTDIR\${APP_EXE}"
  WriteRegStr HKCU "${UNINST_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINST_KEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UNINST_KEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  WriteRegDWORD HKCU "${UNINST_KEY}" "EstimatedSize" $0
SectionEnd

Section /o "Open at login" SecLogin
  WriteRegStr HKCU "${RUN_KEY}" "${RUN_VALUE}" '"$INSTDIR\${APP_EXE}"'
SectionEnd

; the box unticked removes the value, so the install leaves what was
; chosen whether the app's switch or an earlier install wrote it
Section "-login off"
  ${IfNot} ${SectionIsSelected} ${SecLogin}
    DeleteRegValue HKCU "${RUN_KEY}" "${RUN_VALUE}"
  ${EndIf}
SectionEnd

; The box starts as things are (ticked when the app already opens at
; login); /AUTOSTART=1 or =0 decides in a silent install.
Function .onInit
  ReadRegStr $0 HKCU "${RUN_KEY}" "${RUN_VALUE}"
  ${If} $0 != ""
    !insertmacro SelectSection ${SecLogin}
  ${EndIf}
  ${GetParameters} $1
  ClearErrors
  ${GetOptions} $1 "/AUTOSTART=" $2
  ${IfNot} ${Errors}
    ${If} $2 == "1"
      !insertmacro SelectSection ${SecLogin}
    ${Else}
      !insertmacro UnselectSection ${SecLogin}
    ${EndIf}
  ${EndIf}
FunctionEnd

Section "Uninstall"
  SetShellVarContext current
  !insertmacro NotRunning "${APP_EXE}"
  !insertmacro NotRunning "${CLI_EXE}"
  !insertmacro NotRunning "${SERVE_EXE}"
  Delete "$INSTDIR\${APP_EXE}"
  Delete "$INSTDIR\${CLI_EXE}"
  Delete "$INSTDIR\${SERVE_EXE}"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
  ; Programs is shared by every per-user install: removed only if empty
  RMDir "$LOCALAPPDATA\Programs"
  Delete "$SMPROGRAMS\sandboxdesk.lnk"
  ; the window library's preferences (the app's ID): settings, not sandboxes
  RMDir /r "$APPDATA\fyne\dev.sandboxdesk.app"
  RMDir "$APPDATA\fyne"
  DeleteRegValue HKCU "${RUN_KEY}" "${RUN_VALUE}"
  DeleteRegKey HKCU "${UNINST_KEY}"
SectionEnd
